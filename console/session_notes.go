package console

import (
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/project"
)

// openNotes is how many of a branch's latest notes the session page shows
// open; the earlier ones are folded under a count, so a long run reads as
// its last few notes and one line, not a wall of cards.
const openNotes = 3

// noteRun is the notes of one run on the session page, by branch.
type noteRun struct {
	Run      sessionRun
	Branches []noteBranch
	Count    int
}

// noteBranch is the notes of one branch of a run, in log order: the
// earlier ones folded, the latest openNotes shown.
type noteBranch struct {
	Start    engine.NodeID // the branch's first node
	ForkedAt engine.NodeID // the node it left; 0 on the run's main line
	Earlier  []note
	Latest   []note
}

// Label names a branch in words.
func (b noteBranch) Label() string {
	if b.ForkedAt == 0 {
		return "main line"
	}
	return "branch forked at " + b.ForkedAt.String()
}

// EarlierText counts the folded notes in words.
func (b noteBranch) EarlierText() string {
	if len(b.Earlier) == 1 {
		return "1 earlier note"
	}
	return strconv.Itoa(len(b.Earlier)) + " earlier notes"
}

// notesCount counts a branch's or a run's notes in words.
func notesCount(n int) string {
	if n == 1 {
		return "1 note"
	}
	return strconv.Itoa(n) + " notes"
}

// groupNotes groups notes (in log order) by run, in the order runs are
// listed, then by branch in the order each branch's first note came.
func groupNotes(runs []sessionRun, notes []note) []noteRun {
	var out []noteRun
	for _, r := range runs {
		g := noteRun{Run: r}
		at := map[engine.NodeID]int{}
		for _, n := range notes {
			if n.Run != r.ID {
				continue
			}
			i, ok := at[n.Branch]
			if !ok {
				i = len(g.Branches)
				at[n.Branch] = i
				g.Branches = append(g.Branches, noteBranch{Start: n.Branch, ForkedAt: n.ForkedAt})
			}
			g.Branches[i].Latest = append(g.Branches[i].Latest, n)
			g.Count++
		}
		for i := range g.Branches {
			b := &g.Branches[i]
			cut := max(0, len(b.Latest)-openNotes)
			b.Earlier, b.Latest = b.Latest[:cut], b.Latest[cut:]
		}
		if g.Count > 0 {
			out = append(out, g)
		}
	}
	return out
}

// branches finds the branch each node of a graph is on: a node forked
// from a non-tip starts a branch; every other node is on its parent's.
type branches struct {
	g     *project.Graph
	start map[engine.NodeID]engine.NodeID
}

// of is the first node of n's branch and the node that branch left (0
// for a run's main line).
func (b *branches) of(n project.Node) (start, forkedAt engine.NodeID, err error) {
	// Walk up to a node whose branch is known, or that starts one, then
	// record the answer for every node passed.
	var passed []engine.NodeID
	for {
		if s, ok := b.start[n.ID]; ok {
			start = s
			break
		}
		passed = append(passed, n.ID)
		if n.Parent == 0 || b.g.ForkedFrom(n) != 0 {
			start = n.ID
			break
		}
		if n, err = b.g.Node(n.Parent); err != nil {
			return 0, 0, err
		}
	}
	for _, id := range passed {
		b.start[id] = start
	}
	first, err := b.g.Node(start)
	if err != nil {
		return 0, 0, err
	}
	return start, b.g.ForkedFrom(first), nil
}
