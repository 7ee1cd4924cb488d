package project

import (
	"sort"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
)

// SnapshotFunc reads a node snapshot by reference.
type SnapshotFunc func(engine.SnapshotRef) (run.Snapshot, error)

// Graph is a session folded from its events in memory: the same node and
// run records the store keeps, plus what only the Console and export ask
// about (edge kinds, attempts, observations). It implements Reader.
type Graph struct {
	Session  engine.SessionID
	events   []event.Event // events[i].Index == i+1
	nodes    map[engine.NodeID]Node
	runs     map[engine.RunID]Run
	attempts map[attemptKey]engine.EventIndex
	edges    map[engine.NodeID]event.EdgeKind // kind of the edge into a node
	snapshot SnapshotFunc
}

type attemptKey struct {
	node    engine.NodeID
	attempt engine.Attempt
}

// NewGraph returns an empty graph of session id; snapshots are read
// through snap.
func NewGraph(id engine.SessionID, snap SnapshotFunc) *Graph {
	return &Graph{Session: id, nodes: map[engine.NodeID]Node{}, runs: map[engine.RunID]Run{},
		attempts: map[attemptKey]engine.EventIndex{}, edges: map[engine.NodeID]event.EdgeKind{}, snapshot: snap}
}

// Fold builds the graph of a session from its events, in log order.
func Fold(id engine.SessionID, evs []event.Event, snap SnapshotFunc) (*Graph, error) {
	g := NewGraph(id, snap)
	// Sized for a log that is mostly steps (a node, an edge and an advance
	// each), so a long log is not copied and rehashed as the fold grows.
	g.events = make([]event.Event, 0, len(evs))
	g.nodes = make(map[engine.NodeID]Node, len(evs)/3)
	g.attempts = make(map[attemptKey]engine.EventIndex, len(evs)/3)
	g.edges = make(map[engine.NodeID]event.EdgeKind, len(evs)/3)
	for _, e := range evs {
		if err := g.Add(e); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Add folds the next event of the log into the graph.
func (g *Graph) Add(e event.Event) error {
	if want := engine.EventIndex(len(g.events) + 1); e.Index != want {
		return notFound("event", want)
	}
	if err := Index(g, e); err != nil {
		return err
	}
	if d, ok := e.Data.(*event.EdgeCreatedData); ok {
		g.edges[d.To] = d.EdgeKind
	}
	g.events = append(g.events, e)
	return nil
}

// Clone returns a copy that later Adds to either do not affect the other.
func (g *Graph) Clone() *Graph {
	c := NewGraph(g.Session, g.snapshot)
	c.events = append([]event.Event(nil), g.events...)
	for k, v := range g.nodes {
		v.Children, v.Outputs, v.Gaps = clip(v.Children), clip(v.Outputs), clip(v.Gaps)
		c.nodes[k] = v
	}
	for k, v := range g.runs {
		c.runs[k] = v
	}
	for k, v := range g.attempts {
		c.attempts[k] = v
	}
	for k, v := range g.edges {
		c.edges[k] = v
	}
	return c
}

// clip makes a later append copy instead of writing into shared memory.
func clip[T any](s []T) []T { return s[:len(s):len(s)] }

// Events returns the folded events in log order.
func (g *Graph) Events() []event.Event { return g.events }

// Head is the index of the last event (0 for an empty log).
func (g *Graph) Head() engine.EventIndex { return engine.EventIndex(len(g.events)) }

// Event implements Reader.
func (g *Graph) Event(i engine.EventIndex) (event.Event, error) {
	if i < 1 || int(i) > len(g.events) {
		return event.Event{}, notFound("event", i)
	}
	return g.events[i-1], nil
}

// Node implements Reader and Indexes.
func (g *Graph) Node(id engine.NodeID) (Node, error) {
	n, ok := g.nodes[id]
	if !ok {
		return n, notFound("node", id)
	}
	return n, nil
}

// Snapshot implements Reader.
func (g *Graph) Snapshot(ref engine.SnapshotRef) (run.Snapshot, error) {
	if g.snapshot == nil {
		return run.Snapshot{}, notFound("snapshot", ref)
	}
	return g.snapshot(ref)
}

// PutNode implements Indexes.
func (g *Graph) PutNode(n Node) error { g.nodes[n.ID] = n; return nil }

// Run returns the record of run id.
func (g *Graph) Run(id engine.RunID) (Run, error) {
	r, ok := g.runs[id]
	if !ok {
		return r, notFound("run", id)
	}
	return r, nil
}

// PutRun implements Indexes.
func (g *Graph) PutRun(r Run) error { g.runs[r.ID] = r; return nil }

// PutAttempt implements Indexes.
func (g *Graph) PutAttempt(n engine.NodeID, a engine.Attempt, at engine.EventIndex) error {
	g.attempts[attemptKey{n, a}] = at
	return nil
}

// Attempt returns the index of the advance_recorded of attempt a at node n.
func (g *Graph) Attempt(n engine.NodeID, a engine.Attempt) (engine.EventIndex, bool) {
	at, ok := g.attempts[attemptKey{n, a}]
	return at, ok
}

// Runs returns the runs in the order they started.
func (g *Graph) Runs() []Run {
	out := make([]Run, 0, len(g.runs))
	for _, r := range g.runs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartedAt < out[j].StartedAt })
	return out
}

// Nodes returns the nodes of run id in the order they were created.
func (g *Graph) Nodes(id engine.RunID) []Node {
	var out []Node
	for _, n := range g.nodes {
		if n.Run == id {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out
}

// Edge returns the kind of the edge into node id; false for a run's root.
func (g *Graph) Edge(id engine.NodeID) (event.EdgeKind, bool) {
	k, ok := g.edges[id]
	return k, ok
}
