package bundle

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// derived is every readable part of a bundle: what a fold of its events
// says. Build writes it; verification computes it again and compares.
type derived struct {
	session      Session
	observations []Observation
	runs         []Run
	outputs      []Output
	gaps         []Gap
	preferences  []Preference
}

// fill writes the derived parts into b.
func (d derived) fill(b *Bundle) {
	b.Session, b.Observations, b.Runs = d.session, d.observations, d.runs
	b.Outputs, b.Gaps, b.Preferences = d.outputs, d.gaps, d.preferences
}

// fold folds a session's events into its graph and, event by event as
// the store keeps it, its overview (which reads the graph as it stood
// after each event).
func fold(id engine.SessionID, evs []event.Event, snaps map[engine.SnapshotRef]run.Snapshot) (*project.Graph, project.Overview, *project.Lineage, error) {
	f := project.NewFolder(id, snapshotsOf(snaps))
	for _, e := range evs {
		if err := f.Add(e); err != nil {
			return nil, f.Overview, nil, err
		}
	}
	return f.Graph, f.Overview, f.Lineage, nil
}

// derive projects a folded session into the bundle's readable parts.
// level is the session's redaction, and written what its session part
// says of it: level itself in version 2, nothing in version 1.
func derive(g *project.Graph, ov project.Overview, level, written Redaction) (derived, error) {
	created := g.Created()
	d := derived{
		session: Session{ID: g.Session, CreatedAt: created.CreatedAt, WorkspacePath: created.WorkspacePath,
			Redacted: level != RedactNone, Redaction: written, ImportedFrom: created.ImportedFrom},
		observations: []Observation{}, runs: []Run{}, outputs: []Output{}, gaps: project.Gaps(g.Events()),
		preferences: []Preference{},
	}
	if d.gaps == nil {
		d.gaps = []Gap{}
	}
	outputAt := map[engine.EventID]int{}
	edges := map[engine.RunID][]Edge{}
	for _, e := range g.Events() {
		switch x := e.Data.(type) {
		case *event.EdgeCreatedData:
			edges[e.Run] = append(edges[e.Run], Edge{Kind: x.EdgeKind, From: x.From, To: x.To, CreatedBy: e.ID})
		case *event.ObservationRecordedData:
			d.observations = append(d.observations, Observation{EventID: e.ID, Key: x.Key, Value: x.Value})
		case *event.PreferencesChangedData:
			d.preferences = append(d.preferences, Preference{EventID: e.ID, Run: e.Run, Node: e.Node, Delta: x.Delta, Effective: x.Effective})
		case *event.NodeOutputAppendedData:
			if i, ok := outputAt[x.Supersedes]; ok {
				d.outputs[i].SupersededBy = append(d.outputs[i].SupersededBy, e.ID)
			}
			outputAt[e.ID] = len(d.outputs)
			d.outputs = append(d.outputs, Output{ID: e.ID, Run: e.Run, Node: e.Node, StepID: x.StepID,
				NotesMarkdown: x.NotesMarkdown, Artifacts: x.Artifacts, Supersedes: x.Supersedes})
		}
	}
	d.session.Title = ov.Title
	for _, r := range g.Runs() {
		out, err := deriveRun(g, r, edges[r.ID])
		if err != nil {
			return d, err
		}
		d.runs = append(d.runs, out)
	}
	return d, nil
}

// deriveRun projects one run: its state at the preferred tip, its nodes
// in creation order and its edges in log order.
func deriveRun(g *project.Graph, r project.Run, edges []Edge) (Run, error) {
	sum, err := project.Summarize(g, r)
	if err != nil {
		return Run{}, err
	}
	out := Run{ID: r.ID, WorkflowID: r.WorkflowID, WorkflowHash: r.WorkflowHash, RestartOf: r.RestartOf, Repo: r.Repo,
		StartedBy: engine.NewEventID(g.Session, r.StartedAt), Root: r.Root, PreferredTip: sum.Tip.ID,
		Status: sum.Status, Pending: sum.Pending, IsComplete: sum.Status == project.Complete,
		Nodes: []Node{}, Edges: edges}
	if edges == nil {
		out.Edges = []Edge{}
	}
	for _, n := range g.Nodes(r.ID) {
		snap, err := g.Snapshot(n.Snapshot)
		if err != nil {
			return Run{}, err
		}
		node := Node{ID: n.ID, Kind: n.Kind, Parent: n.Parent, Snapshot: n.Snapshot,
			CreatedBy: engine.NewEventID(g.Session, n.CreatedAt), Attempts: n.Attempts}
		if snap.Position.Kind == run.Pending {
			node.StepID = snap.Position.Step
		}
		out.Nodes = append(out.Nodes, node)
	}
	return out, nil
}
