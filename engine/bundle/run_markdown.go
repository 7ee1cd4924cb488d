package bundle

import (
	"strings"

	"github.com/workrail/workrail/engine"
)

// RunMarkdown renders one run of a verified bundle, as Markdown pulls it
// into the session's document: its status, the notes of its preferred
// branch step by step, its branches, its open gaps and the step it waits
// on. ok is false when the bundle holds no such run. The same bundle
// always renders the same text.
func RunMarkdown(v *Verified, id engine.RunID) (string, bool) {
	m := &markdown{v: v, outputs: map[engine.EventID]Output{}}
	for _, o := range v.Bundle.Outputs {
		m.outputs[o.ID] = o
	}
	for _, r := range v.Bundle.Runs {
		if r.ID != id {
			continue
		}
		s := v.Bundle.Session
		m.f("# %s of %s\n\n", r.ID, s.ID)
		m.run(r)
		m.openGaps(r.ID)
		m.pending(r)
		return strings.TrimRight(m.b.String(), "\n") + "\n", true
	}
	return "", false
}

// openGaps lists the run's gaps no later record resolved, worst first.
func (m *markdown) openGaps(id engine.RunID) {
	open, _ := m.gapsOf(func(r Run) bool { return r.ID == id })
	if len(open) == 0 {
		return
	}
	m.f("### Open gaps\n\n")
	for _, g := range open {
		m.gap(g)
	}
	m.f("\n")
}

// pending shows the step the run waits on, with its prompt as the
// workflow wrote it.
func (m *markdown) pending(r Run) {
	p, err := m.v.Projection(r.ID)
	if err != nil || p.Complete() {
		return
	}
	row, ok := p.Row(p.Tip)
	if !ok || row.Step == "" {
		return
	}
	c := m.v.Workflows[r.WorkflowHash]
	m.f("### Pending step\n\n%s\n\n", stepName(c, row.Step))
	if st, ok := c.Step(row.Step); ok && strings.TrimSpace(st.Prompt) != "" {
		m.f("%s\n\n", quote(inertBlock(strings.TrimSpace(st.Prompt))))
	}
}
