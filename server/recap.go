package server

import (
	"encoding/json"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
)

const (
	// MaxSiblings bounds the branches a fork response describes.
	MaxSiblings = 5
	// maxWalk bounds how far a branch summary descends.
	maxWalk = 10000
)

// recap collects the notes on the path from `from` up to (not including)
// `stop` (0: the run's root, inclusive), newest kept first.
func recap(tx *store.Tx, from store.NodeInfo, stop engine.NodeID) (event.Recap, error) {
	var entries []event.RecapEntry
	used, full := 0, false
	total := from.PathOutputs
	if stop != 0 {
		s, err := tx.Node(stop)
		if err != nil {
			return event.Recap{}, err
		}
		total -= s.PathOutputs
	}
	for n := from; n.ID != stop && !full; {
		for i := len(n.Outputs) - 1; i >= 0; i-- {
			e, err := entry(tx, n.ID, n.Outputs[i])
			if err != nil {
				return event.Recap{}, err
			}
			size := len(e.NotesMarkdown) + len(e.StepID) + 32
			if used+size > protocol.RecapBudget {
				full = true
				break
			}
			entries, used = append(entries, e), used+size
		}
		if n.Parent == 0 {
			break
		}
		var err error
		if n, err = tx.Node(n.Parent); err != nil {
			return event.Recap{}, err
		}
	}
	for i, j := 0, len(entries)-1; i < j; i, j = i+1, j-1 {
		entries[i], entries[j] = entries[j], entries[i]
	}
	r := event.Recap{Entries: entries, Omitted: total - len(entries)}
	if r.Entries == nil {
		r.Entries = []event.RecapEntry{}
	}
	if r.Omitted > 0 {
		r.Policy = "kept_most_recent"
	}
	return r, nil
}

func entry(tx *store.Tx, node engine.NodeID, at engine.EventIndex) (event.RecapEntry, error) {
	ev, err := tx.Event(at)
	if err != nil {
		return event.RecapEntry{}, err
	}
	d, _ := ev.Data.(*event.NodeOutputAppendedData)
	e := event.RecapEntry{Node: node, StepID: d.StepID, NotesMarkdown: cut(d.NotesMarkdown, protocol.EntryBudget)}
	for _, a := range d.Artifacts {
		e.Artifacts = append(e.Artifacts, artifactKind(a))
	}
	return e, nil
}

// cut shortens s to at most n bytes on a rune boundary, saying so.
func cut(s string, n int) string {
	const marker = " … [truncated]"
	if len(s) <= n {
		return s
	}
	s = s[:n-len(marker)]
	for len(s) > 0 && !isRuneStart(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ") + marker
}

func isRuneStart(b byte) bool { return b < 0x80 || b >= 0xC0 }

// tip descends from n to its preferred leaf: at each level the child with
// the highest last activity (then the later-created, then the higher id).
func tip(tx *store.Tx, n store.NodeInfo) (store.NodeInfo, int, error) {
	depth := 0
	for len(n.Children) > 0 && depth < maxWalk {
		var best store.NodeInfo
		for i, id := range n.Children {
			c, err := tx.Node(id)
			if err != nil {
				return n, depth, err
			}
			if i == 0 || preferred(c, best) {
				best = c
			}
		}
		n, depth = best, depth+1
	}
	return n, depth, nil
}

func preferred(a, b store.NodeInfo) bool {
	if a.LastActivity != b.LastActivity {
		return a.LastActivity > b.LastActivity
	}
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt > b.CreatedAt
	}
	return a.ID > b.ID
}

// forkFacts describes the branches below parent before a new one is added.
func forkFacts(tx *store.Tx, parent store.NodeInfo) (*event.Fork, error) {
	f := &event.Fork{}
	var bestTip store.NodeInfo
	for i, id := range parent.Children {
		child, err := tx.Node(id)
		if err != nil {
			return nil, err
		}
		leaf, depth, err := tip(tx, child)
		if err != nil {
			return nil, err
		}
		if i == 0 || preferred(leaf, bestTip) {
			bestTip = leaf
		}
		if len(f.Siblings) == MaxSiblings {
			f.Omitted++
			continue
		}
		f.Siblings = append(f.Siblings, event.Branch{Node: id, StepID: pendingStep(tx, leaf), Depth: depth + 1, Summary: latestNote(tx, leaf, parent.ID)})
	}
	down, err := recap(tx, bestTip, parent.ID)
	if err != nil {
		return nil, err
	}
	f.Downstream = down
	return f, nil
}

// latestNote is the first line of the newest note on the branch from leaf
// up to stop.
func latestNote(tx *store.Tx, leaf store.NodeInfo, stop engine.NodeID) string {
	for n := leaf; n.ID != stop; {
		if len(n.Outputs) > 0 {
			if e, err := entry(tx, n.ID, n.Outputs[len(n.Outputs)-1]); err == nil {
				line, _, _ := strings.Cut(e.NotesMarkdown, "\n")
				return cut(line, 200)
			}
		}
		p, err := tx.Node(n.Parent)
		if err != nil || n.Parent == 0 {
			return ""
		}
		n = p
	}
	return ""
}

// pendingStep reads the pending step of a node's snapshot ("" when the
// node is complete or unreadable).
func pendingStep(tx *store.Tx, n store.NodeInfo) workflow.StepID {
	var s run.Snapshot
	if tx.Snapshot(n.Snapshot, &s) != nil || s.Position.Kind != run.Pending {
		return ""
	}
	return s.Position.Step
}

// artifactKind is an artifact's "kind", or "(no kind)".
func artifactKind(a json.RawMessage) string {
	var k struct {
		Kind string `json:"kind"`
	}
	if json.Unmarshal(a, &k) != nil || k.Kind == "" {
		return "(no kind)"
	}
	return k.Kind
}
