package console

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// originKind is the closed set of ways a branch of a run came to be.
type originKind string

const (
	// originFirst: the path the run took first from the node, before
	// another branch forked beside it.
	originFirst originKind = "first"
	// originRewound: an agent acknowledged a step again with an old
	// token (a rewound chat), which forked a new branch.
	originRewound originKind = "rewound"
	// originConsole: a person forked the node in the Console.
	originConsole originKind = "console"
	// originCheckpoint: a checkpoint, left on its own branch when the run
	// went on from its step.
	originCheckpoint originKind = "checkpoint"
)

// origin is how the branch starting at a node came to be, and for a
// Console fork the context keys it changed.
type origin struct {
	Kind    originKind
	Context []string // sorted
}

// originOf reads how node n came to be from the log: the kind of the edge
// into it and, for a fork, who recorded it (node_created's origin). It is
// the one place that tells a Console fork from a rewound chat. A log
// written before events carried their origin (its events have no time
// either) is read by the attempt number the Console gives its forks
// (execute.NumberedByConsole), the only mark such logs carry. n must not
// be a run's root.
func originOf(g *project.Graph, n project.Node) (origin, error) {
	switch k, _ := g.Edge(n.ID); k {
	case event.EdgeCheckpoint:
		return origin{Kind: originCheckpoint}, nil
	case event.EdgeAckedStep:
		return origin{Kind: originFirst}, nil
	}
	console, err := madeInConsole(g, n)
	if err != nil || !console {
		return origin{Kind: originRewound}, err
	}
	changed, err := contextChanged(g, n)
	return origin{Kind: originConsole, Context: changed}, err
}

// madeInConsole says whether the Console recorded node n: its
// node_created's origin, or in a log from before origins were recorded,
// the attempt number of the acknowledgement that made it.
func madeInConsole(g *project.Graph, n project.Node) (bool, error) {
	created, err := g.Event(n.CreatedAt)
	if err != nil {
		return false, err
	}
	if created.Origin == event.OriginConsole || created.AppendedAt != 0 {
		return created.Origin == event.OriginConsole, nil
	}
	made, err := g.Event(n.CreatedAt - 1)
	if err != nil {
		return false, err
	}
	d, ok := made.Data.(*event.AdvanceRecordedData)
	return ok && execute.NumberedByConsole(d.Attempt), nil
}

// contextChanged lists the context keys whose value at n differs from
// its parent's: what a Console fork sent.
func contextChanged(g *project.Graph, n project.Node) ([]string, error) {
	parent, err := g.Node(n.Parent)
	if err != nil {
		return nil, err
	}
	at, err := g.Snapshot(n.Snapshot)
	if err != nil {
		return nil, err
	}
	before, err := g.Snapshot(parent.Snapshot)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(at.Context)) {
		if v, ok := before.Context[k]; !ok || !sameValue(v, at.Context[k]) {
			out = append(out, k)
		}
	}
	return out, nil
}

func sameValue(a, b any) bool {
	raw, err := json.Marshal(b)
	return err == nil && workflow.SameValue(a, raw)
}

// Text is the origin in words, as a branch's label says it.
func (o origin) Text() string {
	switch o.Kind {
	case originFirst:
		return "the path taken first"
	case originConsole:
		if len(o.Context) == 0 {
			return "forked in the Console, context unchanged"
		}
		return "forked in the Console, context changed: " + strings.Join(o.Context, ", ")
	case originCheckpoint:
		return "a checkpoint left behind"
	}
	return "an agent rewound"
}

// branchInfo is how a node that starts a branch or a fork came to be,
// and where it left: the node it leaves and the step pending there, the
// one whose acknowledgement made it.
type branchInfo struct {
	Origin origin
	From   engine.NodeID
	After  workflow.StepID
}

// Where says where the branch or fork left: "forked from node_2 after
// triage" for a fork, "from node_2 after b" for the path taken first,
// "at node_9 after d" for a checkpoint left behind.
func (b branchInfo) Where() string {
	where := b.From.String()
	if b.After != "" {
		where += " after " + string(b.After)
	}
	switch b.Origin.Kind {
	case originFirst:
		return "from " + where
	case originCheckpoint:
		return "at " + where
	}
	return "forked from " + where
}

// Glyph marks a fork, "↳ ", so a narrow page that shows only how a
// branch came to be still shows it is a fork.
func (b branchInfo) Glyph() string {
	if b.Origin.Kind == originRewound || b.Origin.Kind == originConsole {
		return "↳ "
	}
	return ""
}

// Label is the branch's label in words, where it left and how it came to
// be: "↳ forked from node_2 after triage: an agent rewound".
func (b branchInfo) Label() string { return b.Glyph() + b.Where() + ": " + b.Origin.Text() }

// branchInfos reads how each branch of l other than the current one came
// to be, and each fork on show (a fork on the current branch starts no
// branch of its own), by first node.
func branchInfos(g *project.Graph, l lanes.Layout) (map[engine.NodeID]branchInfo, error) {
	out := make(map[engine.NodeID]branchInfo, len(l.Branches))
	add := func(id engine.NodeID) error {
		n, err := g.Node(id)
		if err != nil {
			return err
		}
		o, err := originOf(g, n)
		if err != nil {
			return err
		}
		parent, err := g.Node(n.Parent)
		if err != nil {
			return err
		}
		snap, err := g.Snapshot(parent.Snapshot)
		if err != nil {
			return err
		}
		out[id] = branchInfo{Origin: o, From: n.Parent, After: snap.Position.Step}
		return nil
	}
	for _, br := range l.Branches[1:] {
		if err := add(br.Top); err != nil {
			return nil, err
		}
	}
	for _, row := range l.Rows {
		if _, ok := out[row.Node]; !ok && row.ForkedFrom != 0 {
			if err := add(row.Node); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// branchSentence is the run's state over all its branches, "2 branches
// complete, 1 in progress; current branch A at wrap-up"; "" for a run of
// one branch, whose state its status says.
func branchSentence(l lanes.Layout) string {
	if len(l.Branches) < 2 {
		return ""
	}
	count := map[project.RunStatus]int{}
	for _, br := range l.Branches {
		count[br.State.Status]++
	}
	var s string
	if count[project.Complete] == len(l.Branches) {
		s = strconv.Itoa(len(l.Branches)) + " branches, all complete"
	} else {
		var parts []string
		for _, st := range []project.RunStatus{project.Complete, project.Blocked, project.InProgress} {
			if n := count[st]; n > 0 {
				parts = append(parts, strconv.Itoa(n)+" "+stateWord(st))
			}
		}
		noun := " branches "
		if first := parts[0]; strings.HasPrefix(first, "1 ") {
			noun = " branch "
		}
		num, rest, _ := strings.Cut(parts[0], " ")
		parts[0] = num + noun + rest
		s = strings.Join(parts, ", ")
	}
	cur := l.Branches[0]
	s += "; current branch " + cur.Label
	switch cur.State.Status {
	case project.Complete:
		return s + " complete"
	case project.Blocked:
		return s + " blocked at " + string(cur.State.Pending)
	}
	return s + " at " + string(cur.State.Pending)
}

func stateWord(s project.RunStatus) string {
	switch s {
	case project.Complete:
		return "complete"
	case project.Blocked:
		return "blocked"
	}
	return "in progress"
}

// branchOf is the branch a row is on.
func (v runView) branchOf(row lanes.Row) lanes.Branch { return v.Layout.Branches[row.Branch] }

// lettered says the page labels rows with their branch's letter: the run
// has more than one.
func (v runView) lettered() bool { return len(v.Layout.Branches) > 1 }

// endShown says a node row ends its branch in a run of several, and
// says how: ✓ on a completed leaf, blocked, or where a branch other than
// the current one waits (the tip's row says that of the current one).
func (v runView) endShown(row lanes.Row) bool {
	return row.Ends && v.lettered() && !(row.Tip && v.branchOf(row).State.Status == project.InProgress)
}

// stubText describes a folded branch by what sets it apart from its
// siblings: its length (with the branches off it) and its first step,
// "3 steps from reproduce"; a checkpoint left behind is "at" its step.
func stubText(br lanes.Branch, row lanes.Row) string {
	s := row.Summary()
	switch {
	case br.First == "":
	case row.Folded == row.Checkpoints:
		s += " at " + string(br.First)
	default:
		s += " from " + string(br.First)
	}
	return s
}

// expandAll is the expand query value that opens every folded row.
const expandAll = "all"

// expandSet is the set of nodes a run page unfolds: those the URL names,
// or every node of the run for expand=all.
func expandSet(g *project.Graph, q runRequest) map[engine.NodeID]bool {
	if !q.all {
		return q.expand
	}
	all := map[engine.NodeID]bool{}
	for _, n := range g.Nodes(q.run) {
		all[n.ID] = true
	}
	return all
}

// folded says some row of the layout stands for more than one node.
func folded(l lanes.Layout) bool {
	for _, r := range l.Rows {
		if r.Kind != lanes.NodeRow {
			return true
		}
	}
	return false
}

// withAdded is the expand query value with ids appended.
func withAdded(expand string, ids []engine.NodeID) string {
	for _, id := range ids {
		if expand != "" {
			expand += ","
		}
		expand += id.String()
	}
	return expand
}

// branchInkClass names the ink of branch i as the drawing cycles it.
func branchInkClass(i int) string {
	if i > 0 {
		i = 1 + (i-1)%4
	}
	return "ink-" + strconv.Itoa(i)
}
