package project

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// OverviewVersion is the definition version of Overview. The stores
// label what they keep with it and rebuild from the log what was written
// under another, so a build never runs from, nor shows, an overview of
// another definition: bump it whenever a change to Overview or to the
// rules that fill it (Add, headline, maxTitle…) would make a refold
// differ from what an earlier build stored (store/testdata/derived pins
// each version's bytes).
const OverviewVersion = 5

// Overview is the derived record of a whole session: what a list of
// sessions shows and searches, and what ranks them, without folding the
// log. The stores keep it up to date in the transaction of every append
// (Add, after Index folded the same event); a refold of the log rebuilds
// it. It is stored as JSON, so its fields and tags are part of the
// database format.
type Overview struct {
	// Title is derived by the rule of titleRank: the first line of the
	// first notes, else the first run's workflow id, else the first git
	// branch observed.
	Title     string      `json:"title,omitempty"`
	TitleFrom TitleSource `json:"titleFrom,omitempty"`
	// CreatedAt is informational, from session_created (never ordered by).
	CreatedAt string `json:"createdAt,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	// GitBranch is the latest git_branch observation.
	GitBranch string        `json:"gitBranch,omitempty"`
	Runs      []RunOverview `json:"runs,omitempty"` // in start order
	// OpenGaps are the gaps no later record resolved, in log order, with
	// what a list of gaps filters them by.
	OpenGaps []OpenGap `json:"openGaps,omitempty"`
	// Last is the index of the last event folded, and LastKind its kind.
	Last     engine.EventIndex `json:"last"`
	LastKind event.Kind        `json:"lastKind,omitempty"`
	// LastTime is when the latest event that recorded a time was
	// appended: the session's last activity, shown, never ordered by.
	LastTime event.Millis `json:"lastTime,omitzero"`
}

// RunOverview is one run of an Overview: the figures of its RunSummary
// that need no snapshot to show.
type RunOverview struct {
	ID           engine.RunID        `json:"id"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash,omitzero"`
	// Title is the first line of the first notes recorded in the run
	// (the session title's rule); empty when none were.
	Title string `json:"title,omitempty"`
	// RestartOf is the run this one starts over (0 for none).
	RestartOf engine.RunID `json:"restartOf,omitzero"`
	// Root is the run's first node; Tip its preferred tip. Both are 0
	// before the root is created.
	Root engine.NodeID `json:"root,omitzero"`
	Tip  engine.NodeID `json:"tip,omitzero"`
	// Status and Pending are read at the tip by Summarize's rule; a run
	// without a root yet is in progress.
	Status  RunStatus       `json:"status"`
	Pending workflow.StepID `json:"pending,omitempty"`
	// At is the cursor at the tip (its snapshot's Position.Path): where
	// the run stands in its workflow's steps and loops, for "step k of N".
	At    []run.Frame `json:"at,omitempty"`
	Nodes int         `json:"nodes,omitzero"`
	// Verdict, StepsDone, Branches and Forks are the run's projection's
	// (Project keeps them, after Add): its verdict at the tip, the steps
	// done on the way there, its branches, and those of them that are
	// forks (every branch but the first path).
	Verdict   Verdict `json:"verdict,omitempty"`
	StepsDone int     `json:"stepsDone,omitzero"`
	Branches  int     `json:"branches,omitzero"`
	Forks     int     `json:"forks,omitzero"`
	// StartedTime is when the run started and LastTime when an event of
	// it was last appended (its finish, once complete); zero where the
	// log recorded no time. Shown, never ordered by.
	StartedTime event.Millis `json:"startedTime,omitzero"`
	LastTime    event.Millis `json:"lastTime,omitzero"`
}

// OpenGap is an open gap of an Overview: its record's id, and the
// severity and reason it was recorded with (what the gaps list filters
// by, so a filter reads no gap record).
type OpenGap struct {
	ID       engine.EventID    `json:"id"`
	Run      engine.RunID      `json:"run"`
	Severity event.GapSeverity `json:"severity"`
	Reason   event.GapReason   `json:"reason"`
}

// TitleSource is the closed set of what an overview's title came from.
type TitleSource string

// Title sources, from the least preferred.
const (
	TitleFromObservation TitleSource = "observation" // "branch <name>"
	TitleFromWorkflow    TitleSource = "workflow"    // the first run's workflow id
	TitleFromNotes       TitleSource = "notes"       // the first notes' first line
)

// titleRank orders title sources: a title from a better source replaces
// one from a worse; within a source the first title stays. So a session's
// title is the first line of its first notes with text (headline), else
// the workflow id of its first run, else "branch <name>" from its first
// git_branch observation, else empty.
func titleRank(s TitleSource) int {
	switch s {
	case TitleFromNotes:
		return 3
	case TitleFromWorkflow:
		return 2
	case TitleFromObservation:
		return 1
	}
	return 0
}

// maxTitle is how many runes a title keeps.
const maxTitle = 80

// headline is the title notes give: their first line with text once
// Markdown's heading marks, a list bullet and surrounding emphasis or code
// marks are stripped, trimmed, at most maxTitle runes (a cut one ends in
// "…"). It is empty when no line has text, and for notes that are
// WorkRail's own template (an earlier release recorded its placeholder as
// notes): those were never the agent's words.
func headline(notes string) string {
	if fill.IsTemplate(notes) {
		return ""
	}
	for line := range strings.Lines(notes) {
		s := strings.TrimSpace(line)
		if h := strings.TrimLeft(s, "#"); h != s && (h == "" || h[0] == ' ' || h[0] == '\t') {
			s = strings.TrimSpace(h)
		}
		s = strings.TrimSpace(stripBullet(s))
		for len(s) >= 2 && strings.IndexByte("*_`", s[0]) >= 0 && s[len(s)-1] == s[0] {
			s = strings.TrimSpace(s[1 : len(s)-1])
		}
		if s == "" {
			continue
		}
		if utf8.RuneCountInString(s) > maxTitle {
			r := []rune(s)[:maxTitle-1]
			s = strings.TrimRightFunc(string(r), unicode.IsSpace) + "…"
		}
		return s
	}
	return ""
}

// stripBullet removes a list item's marker: "- ", "* ", "+ ", "1. ", "1) ".
func stripBullet(s string) string {
	if len(s) >= 2 && strings.IndexByte("-*+", s[0]) >= 0 && (s[1] == ' ' || s[1] == '\t') {
		return s[2:]
	}
	digits := 0
	for digits < len(s) && digits < 9 && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits > 0 && len(s) > digits+1 && (s[digits] == '.' || s[digits] == ')') && (s[digits+1] == ' ' || s[digits+1] == '\t') {
		return s[digits+2:]
	}
	return s
}

// offer sets the title from src unless a title from as good a source is
// already set.
func (o *Overview) offer(src TitleSource, title string) {
	if title != "" && titleRank(src) > titleRank(o.TitleFrom) {
		o.Title, o.TitleFrom = title, src
	}
}

// OpenGapsOf counts the open gaps recorded in run id.
func (o Overview) OpenGapsOf(id engine.RunID) int {
	n := 0
	for _, g := range o.OpenGaps {
		if g.Run == id {
			n++
		}
	}
	return n
}

// Status is the session's state: blocked when a run is, else in
// progress when a run is or none started, else complete.
func (o Overview) Status() RunStatus {
	st := Complete
	if len(o.Runs) == 0 {
		st = InProgress
	}
	for _, r := range o.Runs {
		switch r.Status {
		case Blocked:
			return Blocked
		case InProgress:
			st = InProgress
		}
	}
	return st
}

// Workflows lists the workflows the session's runs ran, each once, in
// the order their first runs started.
func (o Overview) Workflows() []engine.WorkflowID {
	var out []engine.WorkflowID
	for _, r := range o.Runs {
		if !slices.Contains(out, r.WorkflowID) {
			out = append(out, r.WorkflowID)
		}
	}
	return out
}

// Branches counts the branches of every run.
func (o Overview) Branches() int {
	n := 0
	for _, r := range o.Runs {
		n += r.Branches
	}
	return n
}

// Clone returns a copy of o that shares no memory with it.
func (o Overview) Clone() Overview {
	o.Runs, o.OpenGaps = slices.Clone(o.Runs), slices.Clone(o.OpenGaps)
	return o
}

// Run returns the overview of run id, or nil.
func (o *Overview) Run(id engine.RunID) *RunOverview {
	for i := range o.Runs {
		if o.Runs[i].ID == id {
			return &o.Runs[i]
		}
	}
	return nil
}

// OverviewReader is what folding one event into an Overview reads: the
// derived records as they stand after Index folded that event. A store
// transaction satisfies it, and so does a Graph.
type OverviewReader interface {
	Reader
	// RecordedAttempt is the advance_recorded event of attempt a at node.
	RecordedAttempt(node engine.NodeID, a engine.Attempt) (event.Event, error)
}

// RecordedAttempt implements OverviewReader.
func (g *Graph) RecordedAttempt(n engine.NodeID, a engine.Attempt) (event.Event, error) {
	at, ok := g.Attempt(n, a)
	if !ok {
		return event.Event{}, notFound("attempt", a)
	}
	return g.Event(at)
}

// Add folds the next event of the session into the overview; r reads the
// derived records after Index folded e.
//
// A run's tip is kept without walking the run: every event that touches a
// node sets the node's last activity to its own index, the highest in the
// log, so after it the run's preferred tip is the preferred leaf of that
// node's subtree when the node is reachable (the run's root, or linked
// under a parent: nodes are only linked under reachable ones), and is
// unchanged when it is not (a node created but not yet linked). Status
// and pending step depend on the tip's snapshot and its last attempt
// alone, so they are read again only when the tip moves or is advanced.
func (o *Overview) Add(r OverviewReader, e event.Event) error {
	o.Last, o.LastKind = e.Index, e.Kind
	o.LastTime = cmp.Or(e.AppendedAt, o.LastTime)
	if ro := o.Run(e.Run); ro != nil {
		ro.LastTime = cmp.Or(e.AppendedAt, ro.LastTime)
	}
	switch d := e.Data.(type) {
	case *event.SessionCreatedData:
		if e.Index == 1 {
			o.CreatedAt, o.Workspace = d.CreatedAt, d.WorkspacePath
		}
	case *event.ObservationRecordedData:
		if d.Key == event.ObsGitBranch && d.Value != "" {
			o.GitBranch = d.Value
			o.offer(TitleFromObservation, "branch "+d.Value)
		}
	case *event.RunStartedData:
		o.Runs = append(o.Runs, RunOverview{ID: e.Run, WorkflowID: d.WorkflowID, WorkflowHash: d.WorkflowHash, RestartOf: d.RestartOf, Status: InProgress,
			StartedTime: e.AppendedAt, LastTime: e.AppendedAt})
		o.offer(TitleFromWorkflow, string(d.WorkflowID))
		return nil
	case *event.NodeCreatedData:
		return o.created(r, e)
	case *event.EdgeCreatedData:
		return o.linked(r, d, e)
	case *event.GapRecordedData:
		o.gap(d, e.ID, e.Run)
	}
	if e.Node == 0 {
		return nil
	}
	n, err := r.Node(e.Node)
	if err != nil {
		return err
	}
	ro := o.Run(n.Run)
	if ro == nil {
		return notFound("run", n.Run)
	}
	if d, ok := e.Data.(*event.NodeOutputAppendedData); ok {
		title := headline(d.NotesMarkdown)
		if ro.Title == "" {
			ro.Title = title
		}
		o.offer(TitleFromNotes, title)
	}
	return ro.touched(withEvent{r, e}, n)
}

// created counts a new node: one more leaf. The run's first node is its
// root and first tip; any other is not linked yet, so no reachable node
// changed.
func (o *Overview) created(r OverviewReader, e event.Event) error {
	ro := o.Run(e.Run)
	if ro == nil {
		return notFound("run", e.Run)
	}
	ro.Nodes++
	if ro.Root != 0 {
		return nil
	}
	ro.Root = e.Node
	n, err := r.Node(e.Node)
	if err != nil {
		return err
	}
	return ro.touched(withEvent{r, e}, n)
}

// linked folds an edge: the child was touched.
func (o *Overview) linked(r OverviewReader, d *event.EdgeCreatedData, e event.Event) error {
	to, err := r.Node(d.To)
	if err != nil {
		return err
	}
	cr := o.Run(to.Run)
	if cr == nil {
		return notFound("run", to.Run)
	}
	return cr.touched(withEvent{r, e}, to)
}

// gap opens a gap, or closes the open gap a record resolves (as Gaps: a
// second resolution, or one of an unknown id, changes nothing).
func (o *Overview) gap(d *event.GapRecordedData, id engine.EventID, r engine.RunID) {
	if d.ResolvesGapID == "" {
		o.OpenGaps = append(o.OpenGaps, OpenGap{ID: id, Run: r, Severity: d.Severity, Reason: d.Reason})
		return
	}
	if i := slices.IndexFunc(o.OpenGaps, func(g OpenGap) bool { return g.ID == d.ResolvesGapID }); i >= 0 {
		o.OpenGaps = slices.Delete(o.OpenGaps, i, i+1)
		if len(o.OpenGaps) == 0 {
			o.OpenGaps = nil // as it reads back from JSON
		}
	}
}

// touched moves the run's tip after an event touched node n (see Add).
func (ro *RunOverview) touched(r withEvent, n Node) error {
	if n.ID != ro.Root && n.Parent == 0 {
		return nil
	}
	l, err := preferredLeaf(r, n, 0)
	if err != nil {
		return err
	}
	if l.node.ID == ro.Tip {
		// Only an attempt made at the tip changes what it reads.
		if _, ok := r.e.Data.(*event.AdvanceRecordedData); ok && ro.Status != Complete {
			ro.Status = InProgress
			if lastAttemptBlocked(r, l.node) {
				ro.Status = Blocked
			}
		}
		return nil
	}
	ro.Tip = l.node.ID
	snap, status, pending, err := atTip(r, l.node)
	ro.Status, ro.Pending, ro.At = status, pending, slices.Clone(snap.Position.Path)
	return err
}

// withEvent reads through r, answering for the event being folded
// itself: an attempt just recorded is not read back.
type withEvent struct {
	OverviewReader
	e event.Event
}

func (w withEvent) RecordedAttempt(n engine.NodeID, a engine.Attempt) (event.Event, error) {
	if d, ok := w.e.Data.(*event.AdvanceRecordedData); ok && w.e.Node == n && d.Attempt == a {
		return w.e, nil
	}
	return w.OverviewReader.RecordedAttempt(n, a)
}
