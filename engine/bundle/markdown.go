package bundle

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// Markdown renders a verified bundle for pasting into a pull request: the
// session, then each run (its status, the notes of its preferred branch
// step by step with checkpoints and corrections marked, and the branches
// forked off it), then the gaps, open (worst first, as a complete answer
// names them) before resolved. Notes are the agent's Markdown,
// kept inside block quotes, with no raw HTML (see inertBlock): every text
// an agent, a person or a workflow wrote comes out inert. The same bundle
// always renders the same text.
func Markdown(v *Verified) string {
	m := &markdown{v: v, outputs: map[engine.EventID]Output{}}
	for _, o := range v.Bundle.Outputs {
		m.outputs[o.ID] = o
	}
	m.header()
	for _, r := range v.Bundle.Runs {
		m.run(r)
	}
	m.gaps()
	return strings.TrimRight(m.b.String(), "\n") + "\n"
}

type markdown struct {
	v       *Verified
	b       strings.Builder
	outputs map[engine.EventID]Output
}

func (m *markdown) f(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

func (m *markdown) header() {
	s := m.v.Bundle.Session
	title := s.Title
	if title == "" {
		title = "Session " + s.ID.String()
	}
	m.f("# %s\n\n", inline(title))
	m.f("- Session: `%s`, created %s\n", s.ID, inline(s.CreatedAt))
	if s.WorkspacePath != "" {
		m.f("- Workspace: %s\n", code(s.WorkspacePath))
	}
	for _, o := range m.v.Bundle.Observations {
		m.f("- %s: %s\n", observationLabel[o.Key], code(o.Value))
	}
	if s.ImportedFrom != nil {
		m.f("- Imported from `%s` (chain head `%s`)\n", s.ImportedFrom.Session, short(s.ImportedFrom.ChainHead.String()))
	}
	switch s.Level() {
	case RedactNotes:
		m.f("- Notes are redacted.\n")
	case RedactAll:
		m.f("- Redacted: notes, artifacts, gap texts, context values and observations are masked.\n")
	}
	m.f("\n")
}

var observationLabel = map[event.ObservationKey]string{
	event.ObsGitBranch: "Git branch", event.ObsGitHeadSHA: "Git HEAD", event.ObsRepoRoot: "Repository",
}

func (m *markdown) run(r Run) {
	c := m.v.Workflows[r.WorkflowHash]
	m.f("## %s: %s (%s v%s)\n\n", r.ID, inline(c.Name), code(string(r.WorkflowID)), inline(c.Version))
	p, err := m.v.Projection(r.ID)
	if err != nil {
		m.f("- Status: unreadable (%s)\n\n", inline(err.Error()))
		return
	}
	m.f("- Status: %s\n", m.status(p, c))
	m.f("- %s, %s\n", count(p.StepsDone(), "step done", "steps done"), count(len(p.OpenGaps()), "open gap", "open gaps"))
	m.f("- Pinned workflow: `%s`\n", short(r.WorkflowHash.String()))
	if r.Repo != (event.RepoPin{}) {
		m.f("- Read from repository %s at commit %s\n", code(r.Repo.URL), code(r.Repo.Commit))
	}
	if p.RestartOf != 0 {
		m.f("- Starts %s over\n", p.RestartOf)
	}
	m.f("\n### Steps\n\n")
	stops := p.Along(p.Tip)
	onPath := map[engine.EventID]int{} // output → its number in the steps
	for _, s := range stops {
		for _, ref := range s.Recorded.Outputs {
			if o, ok := m.outputs[engine.NewEventID(m.v.Graph.Session, ref.At)]; ok {
				onPath[o.ID] = len(onPath) + 1
			}
		}
	}
	n := 0
	for _, s := range stops {
		for _, ref := range s.Recorded.Outputs {
			if o, ok := m.outputs[engine.NewEventID(m.v.Graph.Session, ref.At)]; ok {
				n++
				m.output(n, p, s, o, onPath, c)
			}
		}
		for _, x := range s.Refused {
			m.f("_Refused: %s (`%s`)._\n\n", inline(x.Why), x.Code)
		}
		for _, g := range s.NotRecorded {
			m.f("_Gap not recorded (its artifact was refused): %s._\n\n", inline(g.Summary))
		}
	}
	if n == 0 {
		m.f("No notes yet.\n\n")
	}
	m.branches(p, c)
}

// status is the run's verdict in words, with the step it stands at.
func (m *markdown) status(p *project.Projection, c compile.Compiled) string {
	row, _ := p.Row(p.Tip)
	where := ""
	if w := project.ProgressAt(&c, row.At).Words(); w != "" && !p.Complete() {
		where = ", " + w
	}
	switch p.Verdict() {
	case project.VerdictComplete:
		return "complete"
	case project.VerdictNeedsUser:
		return "waiting for the user at " + stepName(c, row.Step) + where
	case project.VerdictBlocked:
		return "blocked at " + stepName(c, row.Step) + where
	}
	return "in progress, next step " + stepName(c, row.Step) + where
}

// output writes step n: output o, recorded at stop s. An output that a
// later one on the path replaces is named, not quoted; the replacement
// says what it replaces. onPath numbers the path's outputs.
func (m *markdown) output(n int, p *project.Projection, s project.Stop, o Output, onPath map[engine.EventID]int, c compile.Compiled) {
	if s.Checkpoint {
		m.f("#### %d. ⚑ Checkpoint during %s (%s)\n\n", n, stepName(c, o.StepID), s.Node)
	} else if row, ok := p.Row(s.Node); ok && row.Continued {
		m.f("#### %d. %s (%s, %s)\n\n", n, stepName(c, o.StepID), s.Node, project.ContinuedText)
	} else {
		m.f("#### %d. %s (%s)\n\n", n, stepName(c, o.StepID), s.Node)
	}
	for _, by := range o.SupersededBy {
		if at, ok := onPath[by]; ok {
			m.f("_Replaced by entry %d below (%s); what it recorded is kept in the session's log._\n\n", at, code(string(by)))
			return
		}
	}
	if o.Supersedes != "" {
		m.f("_Replaces %s._\n\n", m.replaced(o.Supersedes, onPath))
	}
	if len(o.SupersededBy) > 0 {
		m.f("_Replaced on another branch by %s._\n\n", code(string(o.SupersededBy[0])))
	}
	if notes := strings.TrimSpace(o.NotesMarkdown); notes != "" {
		m.f("%s\n\n", quote(inertBlock(notes)))
	}
	if len(o.Artifacts) > 0 {
		m.f("_%s recorded._\n\n", count(len(o.Artifacts), "artifact", "artifacts"))
	}
}

// replaced names the output an output replaces: by its number in the
// steps when it is one of them, else by its node.
func (m *markdown) replaced(id engine.EventID, onPath map[engine.EventID]int) string {
	if at, ok := onPath[id]; ok {
		return fmt.Sprintf("entry %d above (%s)", at, code(string(id)))
	}
	if o, ok := m.outputs[id]; ok {
		return fmt.Sprintf("the output recorded at %s (%s)", o.Node, code(string(id)))
	}
	return code(string(id))
}

// branches lists the run's branches when it has more than one, or when
// its preferred tip stands behind where its line went: each with how it
// came to be, where it left, how far it went and its state, and its
// latest note.
func (m *markdown) branches(p *project.Projection, c compile.Compiled) {
	if len(p.Branches) == 0 || len(p.Branches) == 1 && p.RowOf(p.Tip) == p.RowOf(p.Branches[0].End) {
		return
	}
	m.f("### Branches\n\n")
	for i, b := range p.Branches {
		m.f("- %s\n", m.branch(p, i, b, c))
	}
	m.f("\n")
}

// branch describes one branch: "**B**, an agent went on from an older
// point of the run, from Review (`review`) at node_3: 2 nodes down to
// node_9, left behind at Fix (`fix`): “latest note”".
func (m *markdown) branch(p *project.Projection, i int, b project.Branch, c compile.Compiled) string {
	s := "**" + b.Letter + "**, " + inline(project.OriginText(b.Origin, b.Changed))
	if b.From != 0 {
		row, _ := p.Row(b.From)
		s += fmt.Sprintf(", from %s at %s", stepName(c, row.Step), b.From)
	}
	s += fmt.Sprintf(": %s down to %s, %s", count(len(b.Nodes), "node", "nodes"), b.End, project.StatusText(b.Status))
	if end, ok := p.Row(b.End); ok && b.Status != project.BranchComplete {
		s += " at " + stepName(c, end.Step)
	}
	if note := m.latestNote(p, i, b.End); note != "" {
		s += ": “" + inline(note) + "”"
	}
	return s
}

// standing is the output appended at event at, unless a later one
// supersedes it.
func (m *markdown) standing(at engine.EventIndex) (Output, bool) {
	o, ok := m.outputs[engine.NewEventID(m.v.Graph.Session, at)]
	return o, ok && len(o.SupersededBy) == 0
}

// latestNote is the first line of the last standing note on branch i's
// line down to end.
func (m *markdown) latestNote(p *project.Projection, i int, end engine.NodeID) string {
	stops := p.Along(end)
	for k := len(stops) - 1; k >= 0; k-- {
		if p.BranchOf(stops[k].Node) != i {
			continue
		}
		refs := stops[k].Recorded.Outputs
		for j := len(refs) - 1; j >= 0; j-- {
			if o, ok := m.standing(refs[j].At); ok && strings.TrimSpace(o.NotesMarkdown) != "" {
				line, _, _ := strings.Cut(strings.TrimSpace(o.NotesMarkdown), "\n")
				return project.Cut(line, 120)
			}
		}
	}
	return ""
}

// count is n and the noun for it: "1 node", "2 nodes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func (m *markdown) gaps() {
	open, resolved := m.gapsOf(func(Run) bool { return true })
	if len(open)+len(resolved) == 0 {
		return
	}
	m.f("## Gaps\n\n")
	for _, group := range []struct {
		title string
		gaps  []Gap
	}{{"Open", open}, {"Resolved", resolved}} {
		if len(group.gaps) == 0 {
			continue
		}
		m.f("### %s\n\n", group.title)
		for _, g := range group.gaps {
			m.gap(g)
		}
		m.f("\n")
	}
}

// gapsOf reads the gaps of the runs keep picks from their projections:
// the open ones worst first, as a complete answer names them, and the
// resolved ones in log order; their words are the bundle's records.
func (m *markdown) gapsOf(keep func(Run) bool) (open, resolved []Gap) {
	byID := map[engine.EventID]Gap{}
	for _, g := range m.v.Bundle.Gaps {
		byID[g.ID] = g
	}
	var opened []project.GapAt
	for _, r := range m.v.Bundle.Runs {
		p, err := m.v.Projection(r.ID)
		if err != nil || !keep(r) {
			continue
		}
		for _, g := range p.Gaps() {
			if !g.Open() {
				resolved = append(resolved, byID[g.ID])
			}
		}
		opened = append(opened, p.OpenGaps()...)
	}
	slices.SortStableFunc(opened, project.WorstGapFirst)
	for _, g := range opened {
		open = append(open, byID[g.ID])
	}
	slices.SortStableFunc(resolved, func(a, b Gap) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	return open, resolved
}

func (m *markdown) gap(g Gap) {
	where := string(g.Run.String())
	if id := g.Gap.RelatedStepID; id != "" {
		var c compile.Compiled // the step by its title, as the steps above name it
		if r, err := m.v.Graph.Run(g.Run); err == nil {
			c = m.v.Workflows[r.WorkflowHash]
		}
		where += ", step " + stepName(c, id)
	}
	m.f("- **%s** %s: %s (%s, `%s`)\n", inline(string(g.Gap.Severity)), inline(strings.ReplaceAll(string(g.Gap.Reason), "_", " ")),
		inline(g.Gap.Summary), where, g.ID)
	if g.Gap.HowToResolve != "" && !g.Resolved() {
		m.f("  - To resolve: %s\n", inline(g.Gap.HowToResolve))
	}
	for _, r := range g.Resolutions {
		m.f("  - Resolved at %s: %s\n", r.Node, inline(r.Summary))
	}
}

// stepName is a step's title and id, or the id alone when the workflow
// has no such step.
func stepName(c compile.Compiled, id workflow.StepID) string {
	if st, ok := c.Step(id); ok && st.Title != "" {
		return fmt.Sprintf("%s (%s)", inline(st.Title), code(string(id)))
	}
	return code(string(id))
}

// quote sets notes off as a block quote, so their own headings and lists
// stay inside the step they belong to.
func quote(notes string) string {
	lines := strings.Split(notes, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// oneLine keeps text that goes into a heading or list item on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// short is a digest cut to its first 12 hex digits.
func short(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}
