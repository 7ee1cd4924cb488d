package console

import (
	"strconv"
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
	Branch  int
	Letter  string
	Earlier []note
	Latest  []note
}

// Label names a branch in words.
func (b noteBranch) Label() string { return "branch " + b.Letter }

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
		at := map[int]int{}
		for _, n := range notes {
			if n.Run != r.ID {
				continue
			}
			i, ok := at[n.Branch]
			if !ok {
				i = len(g.Branches)
				at[n.Branch] = i
				g.Branches = append(g.Branches, noteBranch{Branch: n.Branch, Letter: n.Letter})
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
