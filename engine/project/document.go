package project

import (
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// Document is a run's projection as JSON says it (the Console serves it
// at /sessions/{id}/runs/{runId}.json): the verdict, the open gaps, the
// steps done and where the run stands, its branches and its rows, with
// the titles its pinned workflow gives them. Its field names are a
// public surface.
type Document struct {
	SessionID    engine.SessionID    `json:"sessionId"`
	RunID        engine.RunID        `json:"runId"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	RestartOf    engine.RunID        `json:"restartOf,omitzero"`
	Verdict      Verdict             `json:"verdict"`
	// Tip is the run's preferred tip.
	Tip       engine.NodeID `json:"tip"`
	OpenGaps  []DocGap      `json:"openGaps"`
	StepsDone int           `json:"stepsDone"`
	Progress  Progress      `json:"progress"`
	Branches  []DocBranch   `json:"branches"`
	Rows      []DocRow      `json:"rows"`
}

// DocGap is an open gap: where it was recorded and what kind it is (its
// words are in its record, gapId).
type DocGap struct {
	GapID    engine.EventID    `json:"gapId"`
	Severity event.GapSeverity `json:"severity"`
	Reason   event.GapReason   `json:"reason"`
	StepID   workflow.StepID   `json:"stepId,omitempty"`
	// Row is the node of the row whose attempt recorded it, NodeID the
	// node it is on, Branch that node's branch.
	Row    engine.NodeID `json:"row"`
	NodeID engine.NodeID `json:"nodeId"`
	Branch string        `json:"branch"`
}

// DocBranch is one branch.
type DocBranch struct {
	Letter string       `json:"letter"`
	State  BranchStatus `json:"state"`
	Origin Origin       `json:"origin"`
	// Nodes are the node ids the branch holds past the node it left (the
	// first branch holds the root).
	Nodes []engine.NodeID `json:"nodes"`
	// From is the node it left (absent for the first).
	From    engine.NodeID `json:"from,omitzero"`
	End     engine.NodeID `json:"end"`
	Changed []string      `json:"changed,omitempty"`
}

// DocRow is one row: a step pending at a node.
type DocRow struct {
	// NodeID is the node the step was pending at.
	NodeID          engine.NodeID   `json:"nodeId"`
	StepID          workflow.StepID `json:"stepId"`
	Title           string          `json:"title"`
	Branch          string          `json:"branch"`
	BlockedAttempts int             `json:"blockedAttempts"`
	Done            bool            `json:"done"`
	// Loop is the innermost loop the step runs in and its iteration
	// (from 1); null outside loops.
	Loop        *DocLoop        `json:"loop"`
	Outcomes    DocOutcomes     `json:"outcomes"`
	Attempts    []DocAttempt    `json:"attempts"`
	Checkpoints []engine.NodeID `json:"checkpoints"`
	// Next is the node continuing the row on its branch; Forks the first
	// nodes of the branches made from it.
	Next  engine.NodeID   `json:"next,omitzero"`
	Forks []engine.NodeID `json:"forks"`
}

// DocLoop is a loop and one of its iterations.
type DocLoop struct {
	LoopID    workflow.StepID `json:"loopId"`
	Iteration int             `json:"iteration"`
}

// DocOutcomes sums what a row's attempts recorded and met.
type DocOutcomes struct {
	OpenGaps             int `json:"openGaps"`
	Critical             int `json:"critical"`
	UserDependencies     int `json:"userDependencies"`
	ResolvedGaps         int `json:"resolvedGaps"`
	Blocked              int `json:"blocked"`
	Divergences          int `json:"divergences"`
	CapabilitiesMissing  int `json:"capabilitiesMissing"`
	CapabilitiesObserved int `json:"capabilitiesObserved"`
	Checkpoints          int `json:"checkpoints"`
	Refused              int `json:"refused"`
	NotRecorded          int `json:"notRecorded"`
}

// DocAttempt is one attempt and how it came out.
type DocAttempt struct {
	NodeID  engine.NodeID       `json:"nodeId"`
	Attempt engine.Attempt      `json:"attempt"`
	Outcome event.Outcome       `json:"outcome"`
	Console bool                `json:"console,omitempty"`
	Blocker []event.BlockerCode `json:"blockers"`
	// To is the node an advance made.
	To          engine.NodeID    `json:"to,omitzero"`
	Refused     []Refusal        `json:"refused"`
	NotRecorded []CarriedGap     `json:"notRecorded"`
	Gaps        []engine.EventID `json:"gaps"`
}

// Progress is where a run stands in its pinned workflow: step k of the
// workflow's N top-level steps, and the iteration of each loop it is in.
type Progress struct {
	Step  int             `json:"step"`
	Steps int             `json:"steps"`
	Loops []run.LoopPlace `json:"loops"`
}

// ProgressAt reads where a run whose tip stands at cursor at (nil when
// complete) is in c.
func ProgressAt(c *compile.Compiled, at []run.Frame) Progress {
	p := Progress{Loops: []run.LoopPlace{}}
	if c == nil {
		return p
	}
	p.Steps, p.Step = len(c.Steps), len(c.Steps)
	if len(at) == 0 {
		return p
	}
	p.Step = at[0].Index + 1
	list := c.Steps
	for d, f := range at {
		if f.Index >= len(list) || list[f.Index].Loop == nil || d+1 >= len(at) {
			break
		}
		lp := list[f.Index].Loop
		p.Loops = append(p.Loops, run.LoopPlace{LoopID: lp.ID, Title: lp.Title, Iteration: at[d+1].Iteration + 1, MaxIterations: lp.Spec.MaxIterations})
		list = lp.Body
	}
	return p
}

// Words is where the run stands in words: "step 3 of 7 · Fix loop
// iteration 2 (at most 5)", the loop's maximum said as one, not as a
// count of iterations to come; "" without a pinned workflow.
func (p Progress) Words() string {
	if p.Steps == 0 {
		return ""
	}
	s := "step " + strconv.Itoa(p.Step) + " of " + strconv.Itoa(p.Steps)
	for _, l := range p.Loops {
		title := l.Title
		if strings.TrimSpace(title) == "" {
			title = string(l.LoopID)
		}
		s += " · " + title + " iteration " + strconv.Itoa(l.Iteration)
		if l.MaxIterations > 0 {
			s += " (at most " + strconv.Itoa(l.MaxIterations) + ")"
		}
	}
	return s
}

// LoopAt is the innermost loop cursor at runs in, in c, and its
// iteration; ok is false outside loops.
func LoopAt(c *compile.Compiled, at []run.Frame) (run.LoopPlace, bool) {
	loops := ProgressAt(c, at).Loops
	if len(loops) == 0 {
		return run.LoopPlace{}, false
	}
	return loops[len(loops)-1], true
}

// StepTitle is step id's title in c, else its id.
func StepTitle(c *compile.Compiled, id workflow.StepID) string {
	if c != nil {
		if st, ok := c.Step(id); ok && st.Title != "" {
			return st.Title
		}
	}
	return string(id)
}

// Document is p as JSON says it, titled from c, the run's pinned
// workflow (nil: titles are step ids).
func (p *Projection) Document(session engine.SessionID, c *compile.Compiled) Document {
	d := Document{SessionID: session, RunID: p.Run, WorkflowID: p.WorkflowID, WorkflowHash: p.WorkflowHash, RestartOf: p.RestartOf,
		Verdict: p.Verdict(), Tip: p.Tip, OpenGaps: []DocGap{}, StepsDone: p.StepsDone(), Branches: make([]DocBranch, 0, len(p.Branches)), Rows: make([]DocRow, 0, len(p.Rows))}
	tip, _ := p.Part(p.Tip)
	d.Progress = ProgressAt(c, tip.At)
	for _, g := range p.OpenGaps() {
		d.OpenGaps = append(d.OpenGaps, DocGap{GapID: g.ID, Severity: g.Severity, Reason: g.Reason, StepID: g.Step, Row: g.Row, NodeID: g.Node, Branch: p.letterOf(g.Branch)})
	}
	for _, b := range p.Branches {
		d.Branches = append(d.Branches, DocBranch{Letter: b.Letter, State: b.Status, Origin: b.Origin, Nodes: nonNil(b.Nodes),
			From: b.From, End: b.End, Changed: b.Changed})
	}
	for _, r := range p.Rows {
		row := DocRow{NodeID: r.Node, StepID: r.Step, Title: StepTitle(c, r.Step), Branch: p.letterOf(r.Branch), BlockedAttempts: r.Blocked(),
			Done: r.Done(), Outcomes: docOutcomes(r.Outcome), Attempts: make([]DocAttempt, 0, len(r.Attempts)), Checkpoints: nonNil(r.Checkpoints),
			Next: r.Next, Forks: nonNil(r.Forks)}
		if l, ok := LoopAt(c, r.At); ok {
			row.Loop = &DocLoop{LoopID: l.LoopID, Iteration: l.Iteration}
		}
		for _, a := range r.Attempts {
			da := DocAttempt{NodeID: a.Node, Attempt: a.Attempt.Attempt, Outcome: event.OutcomeAdvanced, Blocker: nonNil(a.Blockers),
				To: a.To, Refused: nonNil(a.Refused), NotRecorded: nonNil(a.NotRecorded), Gaps: []engine.EventID{},
				Console: a.Attempt.Attempt >= ConsoleAttempts}
			if a.Blocked {
				da.Outcome = event.OutcomeBlocked
			}
			for _, g := range a.Recorded.Gaps {
				da.Gaps = append(da.Gaps, g.ID)
			}
			row.Attempts = append(row.Attempts, da)
		}
		d.Rows = append(d.Rows, row)
	}
	return d
}

// nonNil is s, or an empty slice where s is nil: JSON lists are lists.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (p *Projection) letterOf(b int) string {
	if b < 0 || b >= len(p.Branches) {
		return ""
	}
	return p.Branches[b].Letter
}

func docOutcomes(o Outcome) DocOutcomes {
	return DocOutcomes{OpenGaps: o.OpenGaps, Critical: o.Critical, UserDependencies: o.UserDependencies, ResolvedGaps: o.ResolvedGaps,
		Blocked: o.Blocked, Divergences: o.Divergences, CapabilitiesMissing: o.Missing, CapabilitiesObserved: o.Observed,
		Checkpoints: o.Checkpoints, Refused: o.Refused, NotRecorded: o.NotRecorded}
}
