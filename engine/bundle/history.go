package bundle

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
)

// history checks that a log is one WorkRail could have written, as far as
// importing it depends on: the session opens it; run and node ids are
// handed out in order from 1 (so the imported session's sequences go on
// from them); each node belongs to a run that started; every node but a
// run's root is linked once, under a node already linked, so a run is a
// tree; and event-id references name earlier events of the right kind.
// A fold would take a log that breaks these and make a session that
// loops, collides or points nowhere.
type history struct {
	runs   engine.RunID
	rooted map[engine.RunID]bool
	nodes  []nodeState // node id n is nodes[n-1]
	kinds  map[engine.EventID]event.Kind
}

type nodeState struct {
	run    engine.RunID
	linked bool // the run's root, or linked under a parent
}

func checkHistory(evs []event.Event) error {
	h := &history{rooted: map[engine.RunID]bool{}, kinds: make(map[engine.EventID]event.Kind, len(evs))}
	for _, e := range evs {
		if err := h.add(e); err != nil {
			return err.With("index", e.Index)
		}
		h.kinds[e.ID] = e.Kind
	}
	for i, n := range h.nodes {
		if !n.linked {
			return invalid(InvalidHistory, "%s is never linked into %s", engine.NodeID(i+1), n.run).With("nodeId", engine.NodeID(i+1).String())
		}
	}
	return nil
}

func (h *history) add(e event.Event) *engine.Error {
	if (e.Index == 1) != (e.Kind == event.SessionCreated) {
		return invalid(InvalidHistory, "event %d is %s; a session's log opens with its one session_created", e.Index, e.Kind)
	}
	switch d := e.Data.(type) {
	case *event.RunStartedData:
		return h.started(e, d)
	case *event.NodeCreatedData:
		return h.created(e)
	case *event.EdgeCreatedData:
		return h.linked(e, d)
	case *event.NodeOutputAppendedData:
		if err := h.refers(e, d.Supersedes, event.NodeOutputAppended); err != nil {
			return err
		}
	case *event.GapRecordedData:
		if err := h.refers(e, d.ResolvesGapID, event.GapRecorded); err != nil {
			return err
		}
	case *event.AdvanceRecordedData:
		if e.Node == 0 {
			return invalid(InvalidHistory, "event %d records an attempt at no node", e.Index)
		}
	}
	return h.scoped(e)
}

func (h *history) started(e event.Event, d *event.RunStartedData) *engine.Error {
	if e.Run != h.runs+1 || e.Node != 0 {
		return invalid(InvalidHistory, "event %d starts %s; the next run is %s", e.Index, e.Run, h.runs+1)
	}
	if d.RestartOf >= e.Run {
		return invalid(InvalidHistory, "event %d starts %s over %s, which has not started", e.Index, e.Run, d.RestartOf)
	}
	h.runs++
	return nil
}

func (h *history) created(e event.Event) *engine.Error {
	next := engine.NodeID(len(h.nodes) + 1)
	if e.Node != next {
		return invalid(InvalidHistory, "event %d creates %s; the next node is %s", e.Index, e.Node, next)
	}
	if e.Run == 0 || e.Run > h.runs {
		return invalid(InvalidHistory, "event %d creates %s in %s, which has not started", e.Index, e.Node, e.Run)
	}
	root := !h.rooted[e.Run]
	h.rooted[e.Run] = true
	h.nodes = append(h.nodes, nodeState{run: e.Run, linked: root})
	return nil
}

func (h *history) linked(e event.Event, d *event.EdgeCreatedData) *engine.Error {
	from, okFrom := h.node(d.From)
	to, okTo := h.node(d.To)
	switch {
	case !okFrom || !okTo || e.Node != d.To:
		return invalid(InvalidHistory, "event %d links %s to %s, not two nodes of the session with the edge on the child", e.Index, d.From, d.To)
	case from.run != e.Run || to.run != e.Run:
		return invalid(InvalidHistory, "event %d links nodes across runs", e.Index)
	case !from.linked || to.linked:
		return invalid(InvalidHistory, "event %d links %s under %s: a node is linked once, under a node already in its run's tree", e.Index, d.To, d.From)
	}
	h.nodes[d.To-1].linked = true
	return nil
}

// scoped checks an event's run and node scope name what exists.
func (h *history) scoped(e event.Event) *engine.Error {
	if e.Run > h.runs {
		return invalid(InvalidHistory, "event %d is in %s, which has not started", e.Index, e.Run)
	}
	if e.Node == 0 {
		return nil
	}
	n, ok := h.node(e.Node)
	if !ok || n.run != e.Run {
		return invalid(InvalidHistory, "event %d is on %s, which is not a node of %s", e.Index, e.Node, e.Run)
	}
	return nil
}

func (h *history) node(id engine.NodeID) (nodeState, bool) {
	if id < 1 || int(id) > len(h.nodes) {
		return nodeState{}, false
	}
	return h.nodes[id-1], true
}

// refers checks an event-id reference names an earlier event of kind k.
func (h *history) refers(e event.Event, ref engine.EventID, k event.Kind) *engine.Error {
	if ref == "" {
		return nil
	}
	if h.kinds[ref] != k {
		return invalid(InvalidHistory, "event %d refers to %s, which is not an earlier %s of this session", e.Index, ref, k).
			With("eventId", string(ref))
	}
	return nil
}
