package project

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Budgets of what a recap and a fork picture carry, in bytes of UTF-8:
// a recap keeps the most recent notes that fit RecapBudget, each entry's
// notes cut at EntryBudget; a fork describes at most MaxSiblings branches.
const (
	RecapBudget = 8 << 10
	EntryBudget = 2 << 10
	MaxSiblings = 5
	// summaryBudget bounds a branch's one-line summary.
	summaryBudget = 200
	// truncated marks text cut to a budget.
	truncated = " … [truncated]"
)

// Recap collects the notes on the path from `from` up to (not including)
// `stop` (0: up to and including the run's root), oldest first, keeping the
// most recent that fit RecapBudget: as a fork's picture records them,
// naming no outputs.
func Recap(r Reader, from Node, stop engine.NodeID) (event.Recap, error) {
	p, err := recap(r, from, stop)
	if err != nil {
		return event.Recap{}, err
	}
	rc := event.Recap{Entries: make([]event.RecapEntry, len(p.Entries)), Omitted: p.Omitted, Policy: p.Policy}
	for i, e := range p.Entries {
		rc.Entries[i] = e.RecapEntry
	}
	return rc, nil
}

// PathRecap is the recap an answer shows of the agent's own path: each
// entry also names the output it shows and the output that one replaces,
// the ids a correction names in supersedesOutputId. A fork's recorded
// picture is an event.Recap, whose entries name none.
type PathRecap struct {
	Entries []PathEntry `json:"entries"`
	Omitted int         `json:"omitted,omitzero"`
	Policy  string      `json:"policy,omitempty"` // "kept_most_recent" when Omitted > 0
}

// PathEntry is one output's notes, with its id.
type PathEntry struct {
	event.RecapEntry
	Output     engine.EventID `json:"outputId"`
	Supersedes engine.EventID `json:"supersedesOutputId,omitempty"`
}

// RecapPath is Recap of the whole path from the run's root down to
// `from`, each entry naming its output.
func RecapPath(r Reader, from Node) (PathRecap, error) { return recap(r, from, 0) }

func recap(r Reader, from Node, stop engine.NodeID) (PathRecap, error) {
	var entries []PathEntry
	used, full := 0, false
	total := from.PathOutputs
	if stop != 0 {
		s, err := r.Node(stop)
		if err != nil {
			return PathRecap{}, err
		}
		total -= s.PathOutputs
	}
	for n := from; n.ID != stop && !full; {
		for i := len(n.Outputs) - 1; i >= 0; i-- {
			e, err := recapEntry(r, n.ID, n.Outputs[i])
			if err != nil {
				return PathRecap{}, err
			}
			size := len(e.NotesMarkdown) + len(e.StepID) + 32
			if used+size > RecapBudget {
				full = true
				break
			}
			entries, used = append(entries, e), used+size
		}
		if n.Parent == 0 {
			break
		}
		var err error
		if n, err = r.Node(n.Parent); err != nil {
			return PathRecap{}, err
		}
	}
	slices.Reverse(entries)
	rc := PathRecap{Entries: entries, Omitted: total - len(entries)}
	if rc.Entries == nil {
		rc.Entries = []PathEntry{}
	}
	if rc.Omitted > 0 {
		rc.Policy = "kept_most_recent"
	}
	return rc, nil
}

func recapEntry(r Reader, node engine.NodeID, at engine.EventIndex) (PathEntry, error) {
	ev, err := r.Event(at)
	if err != nil {
		return PathEntry{}, err
	}
	d, ok := ev.Data.(*event.NodeOutputAppendedData)
	if !ok {
		return PathEntry{}, notFound("output event", at)
	}
	e := PathEntry{RecapEntry: event.RecapEntry{Node: node, StepID: d.StepID, NotesMarkdown: Cut(d.NotesMarkdown, EntryBudget)},
		Output: ev.ID, Supersedes: d.Supersedes}
	if fill.IsTemplate(d.NotesMarkdown) {
		e.NotesMarkdown = "" // an earlier release's placeholder, never the agent's words
	}
	for _, a := range d.Artifacts {
		e.Artifacts = append(e.Artifacts, artifactKind(a))
	}
	return e, nil
}

// Cut shortens s to at most n bytes, saying so. It never splits a rune:
// a cut note is recorded (in a fork's picture), and the canonical form
// holds valid UTF-8 only.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-len(truncated)]
	for len(s) > 0 {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return strings.TrimRight(s, " ") + truncated
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

// Branches describes the branches below parent (before a new one is
// added): each child's preferred leaf, how deep it is and its latest note,
// at most MaxSiblings of them, and a recap of what the preferred branch
// recorded below parent.
func Branches(r Reader, parent Node) (*event.Fork, error) {
	above, err := pathActivity(r, parent)
	if err != nil {
		return nil, err
	}
	f := &event.Fork{}
	var best leaf
	for i, id := range parent.Children {
		child, err := r.Node(id)
		if err != nil {
			return nil, err
		}
		l, err := preferredLeaf(r, child, above)
		if err != nil {
			return nil, err
		}
		if i == 0 || l.beats(best) {
			best = l
		}
		if len(f.Siblings) == MaxSiblings {
			f.Omitted++
			continue
		}
		f.Siblings = append(f.Siblings, event.Branch{Node: id, StepID: pendingStep(r, l.node), Depth: l.depth + 1, Summary: latestNote(r, l.node, parent.ID)})
	}
	if f.Downstream, err = Recap(r, best.node, parent.ID); err != nil {
		return nil, err
	}
	return f, nil
}

// latestNote is the first line of the newest note on the branch from
// leaf up to stop.
func latestNote(r Reader, leaf Node, stop engine.NodeID) string {
	for n := leaf; n.ID != stop; {
		if len(n.Outputs) > 0 {
			if e, err := recapEntry(r, n.ID, n.Outputs[len(n.Outputs)-1]); err == nil {
				line, _, _ := strings.Cut(e.NotesMarkdown, "\n")
				return Cut(line, summaryBudget)
			}
		}
		p, err := r.Node(n.Parent)
		if err != nil || n.Parent == 0 {
			return ""
		}
		n = p
	}
	return ""
}

// pendingStep reads the pending step of a node's snapshot ("" when the
// node is complete or its snapshot unreadable).
func pendingStep(r Reader, n Node) workflow.StepID {
	s, err := r.Snapshot(n.Snapshot)
	if err != nil || s.Position.Kind != run.Pending {
		return ""
	}
	return s.Position.Step
}
