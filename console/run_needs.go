package console

import (
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// need is one thing standing in a run's way now, as its header says it:
// what it is in words, the step it is on, how to get past it, and its
// code in small print.
type need struct {
	Kind  needKind
	Text  string
	Step  string // the step's title
	Row   engine.NodeID
	Fix   string
	Code  string
	Worst project.Worst
}

// needKind is the closed set of things a run's header lists.
type needKind string

const (
	needBlocker     needKind = "blocker"
	needGap         needKind = "gap"
	needNotRecorded needKind = "not-recorded"
)

// maxNeeds is how many needs the header lists; the rest are counted and
// the gaps filter lists them.
const maxNeeds = 5

// needs reads what stands in run p's way now, worst first: each blocker
// of the last attempt at its tip, each open critical gap with how to
// resolve it, and each gap the agent reported in an output WorkRail
// refused (tracked nowhere else). Their words are read from the records
// the projection names.
func (c *Console) needs(sid engine.SessionID, p *project.Projection, pin pinned) ([]need, error) {
	var out []need
	err := c.store.View(sid, func(tx execute.ReadTx) error {
		if a, ok := p.TipBlocked(); ok {
			row, _ := p.Row(p.Tip)
			ev, err := tx.Event(a.At)
			if err != nil {
				return err
			}
			d, _ := ev.Data.(*event.AdvanceRecordedData)
			for _, b := range d.Blockers {
				n, err := blockerNeed(b, row, pin)
				if err != nil {
					return err
				}
				out = append(out, n)
			}
		}
		for _, g := range p.OpenGaps() {
			if g.Severity != event.SeverityCritical {
				continue
			}
			n, err := gapNeed(tx, g, pin)
			if err != nil {
				return err
			}
			out = append(out, n)
		}
		for _, row := range p.Rows {
			for _, a := range row.Attempts {
				for _, ng := range a.NotRecorded {
					code := "ARTIFACT_INVALID"
					if ng.Severity != "" {
						code = "sent as " + ng.Severity + " · " + code
					}
					out = append(out, need{Kind: needNotRecorded, Text: "Reported, not recorded: " + ng.Summary, Step: stepTitle(pin.Compiled, row.Step),
						Row: row.Node, Fix: "The gaps report it came in did not match its contract, so WorkRail tracks it nowhere. Ask the agent to report it again.",
						Code: code, Worst: project.WorstCritical})
				}
			}
		}
		return nil
	})
	return out, err
}

func blockerNeed(b event.Blocker, row project.Row, pin pinned) (need, error) {
	n := need{Kind: needBlocker, Text: blockerText(b.Code), Step: stepTitle(pin.Compiled, row.Step), Row: row.Node, Fix: blockerFix(b.Code),
		Code: string(b.Code), Worst: project.WorstBlocked}
	if b.Code != event.BlockUserOnlyDependency {
		n.Text += ": " + b.Message
		return n, nil
	}
	// What only the user can give, as the workflow's author asks for it.
	st, ok, err := pin.Compiled.DecodeStep(row.Step)
	if err != nil {
		return n, err
	}
	if ok && st.UserDependency != nil {
		d := st.UserDependency
		n.Text += ": " + firstNonEmpty(d.RequestedFromUser, d.Summary)
		if len(d.Options) > 0 {
			n.Text += " (" + strings.Join(d.Options, " or ") + ")"
		}
		return n, nil
	}
	n.Text += ": confirm “" + stepTitle(pin.Compiled, row.Step) + "” before the agent goes on"
	return n, nil
}

func gapNeed(tx execute.ReadTx, g project.GapAt, pin pinned) (need, error) {
	ev, err := tx.Event(g.At)
	if err != nil {
		return need{}, err
	}
	d, _ := ev.Data.(*event.GapRecordedData)
	return need{Kind: needGap, Text: clip(d.Summary, maxShownSummary), Step: stepTitle(pin.Compiled, firstStep(d.RelatedStepID, g.Step)), Row: g.Row,
		Fix: clip(gapFix(d.Reason, d.HowToResolve), maxShownSummary), Code: gapReasonText(d.Reason) + " · " + string(d.Reason), Worst: project.WorstCritical}, nil
}

func firstStep[T ~string](a, b T) T {
	if a != "" {
		return a
	}
	return b
}
