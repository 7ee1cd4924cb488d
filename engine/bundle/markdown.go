package bundle

import (
	"fmt"
	"slices"
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
	m.f("- Status: %s\n", m.status(r, c))
	m.f("- Pinned workflow: `%s`\n", short(r.WorkflowHash.String()))
	if r.Repo != (event.RepoPin{}) {
		m.f("- Read from repository %s at commit %s\n", code(r.Repo.URL), code(r.Repo.Commit))
	}
	if r.RestartOf != 0 {
		m.f("- Starts %s over\n", r.RestartOf)
	}
	m.f("\n### Steps\n\n")
	path := m.path(r.PreferredTip)
	var shown []shownOutput
	onPath := map[engine.EventID]int{} // output → its number in the steps
	for _, id := range path {
		node, _ := m.v.Graph.Node(id)
		for _, at := range node.Outputs {
			if o, ok := m.outputs[engine.NewEventID(m.v.Graph.Session, at)]; ok {
				shown = append(shown, shownOutput{node, o})
				onPath[o.ID] = len(shown)
			}
		}
	}
	for i, s := range shown {
		m.output(i+1, s, onPath, c)
	}
	if len(shown) == 0 {
		m.f("No notes yet.\n\n")
	}
	m.forks(r, path)
}

// shownOutput is an output on the path the steps show, and its node.
type shownOutput struct {
	node project.Node
	o    Output
}

func (m *markdown) status(r Run, c compile.Compiled) string {
	switch r.Status {
	case project.Complete:
		return "complete"
	case project.Blocked:
		return "blocked at " + stepName(c, r.Pending)
	}
	return "in progress, next step " + stepName(c, r.Pending)
}

// output writes step n: output s.o, recorded on s.node. An output that a
// later one on the path replaces is named, not quoted; the replacement
// says what it replaces. onPath numbers the path's outputs.
func (m *markdown) output(n int, s shownOutput, onPath map[engine.EventID]int, c compile.Compiled) {
	node, o := s.node, s.o
	if node.Kind == event.NodeCheckpoint {
		m.f("#### %d. ⚑ Checkpoint during %s (%s)\n\n", n, stepName(c, o.StepID), node.ID)
	} else {
		m.f("#### %d. %s (%s)\n\n", n, stepName(c, o.StepID), node.ID)
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
		m.f("_%d artifact(s) recorded._\n\n", len(o.Artifacts))
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

// path is the nodes from the run's root down to tip.
func (m *markdown) path(tip engine.NodeID) []engine.NodeID {
	var out []engine.NodeID
	for id := tip; id != 0; {
		out = append(out, id)
		n, err := m.v.Graph.Node(id)
		if err != nil {
			break
		}
		id = n.Parent
	}
	slices.Reverse(out)
	return out
}

// forks lists the branches off the preferred path: every child of a node
// on it that is not the next node on it.
func (m *markdown) forks(r Run, path []engine.NodeID) {
	var lines []string
	for i, id := range path {
		node, _ := m.v.Graph.Node(id)
		for _, child := range node.Children {
			if i+1 < len(path) && child == path[i+1] {
				continue
			}
			lines = append(lines, m.branch(r, node, child))
		}
	}
	if len(lines) == 0 {
		return
	}
	m.f("### Other branches\n\n")
	for _, l := range lines {
		m.f("- %s\n", l)
	}
	m.f("\n")
}

// branch describes the branch under child: where it left the preferred
// path, how far it went, and its latest note.
func (m *markdown) branch(r Run, parent project.Node, child engine.NodeID) string {
	c := m.v.Workflows[r.WorkflowHash]
	n, _ := m.v.Graph.Node(child)
	leaf, _ := project.PreferredTip(m.v.Graph, n)
	what := "forked"
	if k, _ := m.v.Graph.Edge(child); k == event.EdgeCheckpoint {
		what = "⚑ checkpoint"
	}
	depth := len(m.path(leaf.ID)) - len(m.path(parent.ID))
	s := fmt.Sprintf("%s at %s (%s): %s, %d node(s) down to %s", what, parent.ID, stepName(c, m.stepAt(parent)), child, depth, leaf.ID)
	if step := m.stepAt(leaf); step != "" {
		s += ", pending " + stepName(c, step)
	} else {
		s += ", complete"
	}
	if note := m.latestNote(leaf, parent.ID); note != "" {
		s += ": “" + inline(note) + "”"
	}
	return s
}

func (m *markdown) stepAt(n project.Node) workflow.StepID {
	snap, err := m.v.Graph.Snapshot(n.Snapshot)
	if err != nil {
		return ""
	}
	return snap.Position.Step
}

// standing is the output appended at event at, unless a later one
// supersedes it.
func (m *markdown) standing(at engine.EventIndex) (Output, bool) {
	o, ok := m.outputs[engine.NewEventID(m.v.Graph.Session, at)]
	return o, ok && len(o.SupersededBy) == 0
}

// latestNote is the first line of the newest standing note from leaf up
// to stop.
func (m *markdown) latestNote(leaf project.Node, stop engine.NodeID) string {
	for n := leaf; n.ID != stop && n.ID != 0; {
		for i := len(n.Outputs) - 1; i >= 0; i-- {
			if o, ok := m.standing(n.Outputs[i]); ok && o.NotesMarkdown != "" {
				line, _, _ := strings.Cut(strings.TrimSpace(o.NotesMarkdown), "\n")
				return project.Cut(line, 120)
			}
		}
		p, err := m.v.Graph.Node(n.Parent)
		if err != nil {
			return ""
		}
		n = p
	}
	return ""
}

func (m *markdown) gaps() {
	gaps := m.v.Bundle.Gaps
	if len(gaps) == 0 {
		return
	}
	m.f("## Gaps\n\n")
	var open, resolved []Gap
	for _, g := range gaps {
		if g.Resolved() {
			resolved = append(resolved, g)
		} else {
			open = append(open, g)
		}
	}
	slices.SortStableFunc(open, project.WorstFirst)
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
