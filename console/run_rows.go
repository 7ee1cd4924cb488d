package console

import (
	"strconv"
	"strings"

	"github.com/workrail/workrail/console/lanes"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// rowView is one row of the run page as a reader sees it: the step
// pending at a node (its title, whether it went through and how long it
// took, what came of its attempts), or a fold summing what it holds.
type rowView struct {
	lanes.Row
	// R is the projection's row (a node row's, or a fold's first).
	R       project.Row
	Title   string
	Outcome project.Outcome
	// Took is from when the step was pending to when it went through.
	Took span
	// Origin says how the row's branch came to be, on its first row.
	Origin *branchWords
	// Letter is the row's branch's letter, when the run has several.
	Letter string
	// Flat says the row is listed by a filter, outside the drawing.
	Flat bool
}

// rowOf is a layout row as the page shows it.
func (v runView) rowOf(r lanes.Row) rowView {
	pr, _ := v.P.Row(r.Node)
	rv := rowView{Row: r, R: pr, Title: stepTitle(v.Pinned.Compiled, pr.Step), Letter: v.letter(r.Branch)}
	switch r.Kind {
	case lanes.NodeRow:
		rv.Outcome = pr.Outcome
		rv.Took = tookOf(pr)
		if r.Starts {
			rv.Origin = v.branchWordsOf(r.Branch)
		}
	default:
		for _, n := range v.foldMembers(r) {
			if row, ok := v.P.Row(n); ok {
				rv.Outcome = rv.Outcome.Add(row.Outcome)
			}
		}
	}
	return rv
}

// flatRow is a row a filter picks, listed on its own.
func (v runView) flatRow(r project.Row) rowView {
	lr := lanes.Row{Kind: lanes.NodeRow, Node: r.Node, Last: r.Node, Parent: r.Parent, Step: r.Step, At: r.At,
		Checkpoints: len(r.Checkpoints), Forks: len(r.Forks), Branch: r.Branch, Starts: r.Starts}
	if tip, ok := v.P.Row(v.P.Tip); ok && tip.Node == r.Node {
		lr.Tip = true
	}
	rv := v.rowOf(lr)
	rv.Flat = true
	return rv
}

// foldMembers are the rows a stub or loop fold stands for: the line
// below a stub's first row, every row between a loop fold's first and
// last.
func (v runView) foldMembers(r lanes.Row) []engine.NodeID {
	var out []engine.NodeID
	switch r.Kind {
	case lanes.StubRow:
		stack := []engine.NodeID{r.Node}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			row, ok := v.P.Row(n)
			if !ok {
				continue
			}
			out = append(out, n)
			if next, ok := v.P.Row(row.Next); ok && next.Node == row.Next {
				stack = append(stack, row.Next)
			}
			stack = append(stack, row.Forks...)
		}
	case lanes.LoopRow:
		for n := r.Last; n != 0; {
			row, ok := v.P.Row(n)
			if !ok {
				break
			}
			out = append(out, n)
			if n == r.Node {
				break
			}
			n = row.Parent
		}
	}
	return out
}

// tookOf is from when a row's step was pending to when its attempt went
// through (zero ends where it has not, or the log recorded no time).
func tookOf(r project.Row) span {
	s := span{From: r.CreatedTime}
	for _, a := range r.Attempts {
		if !a.Blocked && a.To == r.Next {
			s.To = a.Time
		}
	}
	return s
}

// letter is branch i's letter when the run has more than one, else "".
func (v runView) letter(i int) string {
	if len(v.P.Branches) < 2 || i < 0 || i >= len(v.P.Branches) {
		return ""
	}
	return v.P.Branches[i].Letter
}

// stepTitle is step id's title in c, else its id.
func stepTitle(c *compile.Compiled, id workflow.StepID) string { return project.StepTitle(c, id) }

// verdictText says a run's verdict in words, with a shape: never colour
// alone.
func verdictText(v project.Verdict) string {
	switch v {
	case project.VerdictComplete:
		return "✓ complete"
	case project.VerdictBlocked:
		return "■ blocked"
	case project.VerdictNeedsUser:
		return "☎ needs you"
	}
	return "▶ in progress"
}

// statusText says a run's status in words (the lists that read the
// overview's statuses).
func statusText(s project.RunStatus) string {
	switch s {
	case project.Blocked:
		return "■ blocked"
	case project.Complete:
		return "✓ complete"
	}
	return "▶ in progress"
}

// verdictLine is the run's verdict with its open gaps: "✓ complete · 9
// open gaps (8 critical)". Past blocked attempts are history, not a
// verdict: the rows show them.
func verdictLine(p *project.Projection) string {
	s := verdictText(p.Verdict())
	if gaps := p.OpenGaps(); len(gaps) > 0 {
		critical := 0
		for _, g := range gaps {
			if g.Severity == "critical" {
				critical++
			}
		}
		s += " · " + count(len(gaps), "open gap", "open gaps")
		if critical > 0 {
			s += " (" + strconv.Itoa(critical) + " critical)"
		}
	}
	return s
}

// worstNow is how bad the run is now, for the header's colour: an open
// critical gap, a blocked tip, an open warning, or nothing.
func worstNow(p *project.Projection) project.Worst {
	w := project.WorstNone
	for _, g := range p.OpenGaps() {
		if g.Severity == "critical" {
			return project.WorstCritical
		}
		w = project.WorstWarning
	}
	if v := p.Verdict(); v == project.VerdictBlocked || v == project.VerdictNeedsUser {
		return project.WorstBlocked
	}
	return w
}

// badge is one outcome on a row: a glyph and words, and the class its
// colour comes from (the words carry the meaning; the colour repeats it).
type badge struct {
	Glyph, Text, Class, Title string
}

// badgesOf are a row's outcomes, worst first.
func badgesOf(o project.Outcome) []badge {
	var bs []badge
	if o.OpenGaps > 0 {
		sev, class := "warning", "out-warning"
		if o.Critical > 0 {
			sev, class = "critical", "out-critical"
		}
		bs = append(bs, badge{"⚠", count(o.OpenGaps, "open gap", "open gaps") + " · " + sev, class,
			count(o.OpenGaps, "open gap", "open gaps") + ", the worst " + sev})
	}
	if o.NotRecorded > 0 {
		bs = append(bs, badge{"⚠", count(o.NotRecorded, "gap not recorded", "gaps not recorded"), "out-critical", "the agent reported it in an output WorkRail refused"})
	}
	if o.Blocked > 0 {
		bs = append(bs, badge{"■", "blocked ×" + strconv.Itoa(o.Blocked), "out-blocked", count(o.Blocked, "blocked attempt", "blocked attempts")})
	}
	if o.UserDependencies > 0 {
		bs = append(bs, badge{"☎", "needs the user", "out-warning", count(o.UserDependencies, "open gap waits", "open gaps wait") + " on the user"})
	}
	if o.Refused > 0 {
		bs = append(bs, badge{"⊘", count(o.Refused, "output refused", "outputs refused"), "out-warning", "part of what the agent sent was not taken"})
	}
	if o.Divergences > 0 {
		bs = append(bs, badge{"↯", count(o.Divergences, "divergence", "divergences"), "out-warning", "the agent left the workflow's path"})
	}
	if o.Missing > 0 {
		bs = append(bs, badge{"✗", count(o.Missing, "capability missing", "capabilities missing"), "out-warning", "a capability was observed unavailable"})
	}
	if o.Observed > 0 {
		bs = append(bs, badge{"◎", count(o.Observed, "capability observed", "capabilities observed"), "out-info", "capability observations recorded"})
	}
	if o.ResolvedGaps > 0 {
		bs = append(bs, badge{"✓", count(o.ResolvedGaps, "gap resolved", "gaps resolved"), "out-info", ""})
	}
	return bs
}

// filterLabel is a filter in words with how many rows it picks, counted
// as steps in words ("with gaps: 4 steps"), so that a count of rows is
// never read as a count of gaps, attempts or forks.
func filterLabel(v runView, f runFilter) string {
	name := map[runFilter]string{filterAll: "all", filterGaps: "with gaps", filterBlocked: "blocked", filterForks: "forks"}[f]
	return name + ": " + count(v.Counts[f], "step", "steps")
}

// progressText is where the run stands in words: "step 3 of 7 · Fix loop
// iteration 2 (at most 5)"; "" without a pinned workflow.
func progressText(p project.Progress) string { return p.Words() }

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// stepsDoneText counts the steps done on the way to the tip.
func stepsDoneText(n int) string { return count(n, "step done", "steps done") }

// branchCount counts branches in words.
func branchCount(n int) string { return count(n, "branch", "branches") }

// ahead are the titles of the steps after the one pending at the tip:
// the rest of the innermost loop's body first, then outwards.
func (v runView) ahead() []string {
	c := v.Pinned.Compiled
	tip, _ := v.P.Part(v.P.Tip)
	if c == nil || tip.Step == "" {
		return nil
	}
	var out []string
	var levels [][]compile.Node
	list := c.Steps
	for _, f := range tip.At {
		if f.Index >= len(list) {
			break
		}
		levels = append(levels, list[f.Index+1:])
		if list[f.Index].Loop == nil {
			break
		}
		list = list[f.Index].Loop.Body
	}
	for i := len(levels) - 1; i >= 0; i-- {
		for _, n := range levels[i] {
			out = append(out, nodeTitle(n))
		}
	}
	return out
}

func nodeTitle(n compile.Node) string {
	if n.Loop != nil {
		return firstNonEmpty(n.Loop.Title, string(n.Loop.ID))
	}
	return firstNonEmpty(n.Step.Title, string(n.Step.ID))
}

// overviewProgress is where a run of a session's overview stands, read
// from its tip's cursor: "step k of N", the iteration of each loop it is
// in ("" for a complete run).
func overviewProgress(c *compile.Compiled, r project.RunOverview) string {
	if c == nil || r.Status == project.Complete || len(r.At) == 0 {
		return ""
	}
	return progressText(project.ProgressAt(c, r.At))
}
