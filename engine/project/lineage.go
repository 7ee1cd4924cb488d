package project

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// The projection of a run is the one account of what happened in it that
// every surface reads (the Console's pages, the exports, the resources,
// the complete answer). It is folded from the log one event at a time
// into a Part per node and a RunHead per run, which the stores keep with
// the other derived records (a change to a record read back differs from
// nothing but its own node's, so an append rewrites a few small records,
// never the run), and assembled into a Projection when read.
//
// Its rules, beyond the node records':
//
//   - A row is a step pending at a node: the node (a step node, or the
//     run's root) and the checkpoints taken while that step was pending
//     there, which hold the same snapshot. A checkpoint is never a row nor
//     a branch of its own.
//   - Every attempt is on the row of the node it was made at; what an
//     advance recorded (notes, artifacts, gaps, divergences) is on the node
//     it made, and read as that attempt's.
//   - The first step node made from a row continues the row's branch;
//     every later one starts a branch with the next letter, so letters
//     never change as events are added (A is the first path for good). A
//     branch's origin says how it came to be: the first path, a restart,
//     a Console fork, an agent that went on from before a checkpoint the
//     line had since continued from, or one that went on from an older
//     point of the run.
//   - A step node the log linked as a fork although its row had not gone
//     on (an agent that checkpointed, then sent the call it held from
//     before: builds before this rule recorded that as a fork) continues
//     the row's branch, marked Continued.

// ProjectionVersion is the definition version of the projection's
// records (Part and RunHead). The stores label what they keep with it
// and rebuild from the log what was written under another: bump it
// whenever a change here would make a refold differ from what an earlier
// build stored (store/testdata/derived pins each version's bytes).
const ProjectionVersion = 2 // 2: a part records the event that linked it

// ConsoleAttempts is the attempt number from which the Console numbers
// the attempts of its forks: how a log written before events carried
// their origin tells a Console fork from a rewound chat's.
const ConsoleAttempts engine.Attempt = 10_000

// Origin is the closed set of ways a branch of a run came to be.
type Origin string

// Branch origins.
const (
	// OriginFirst: the path the run took first.
	OriginFirst Origin = "first"
	// OriginRestart: the first path of a run started over from the
	// Console (run_started.restartOf).
	OriginRestart Origin = "restart"
	// OriginRewound: an agent went on from an older point of the run,
	// which the run had moved past (a rewound chat).
	OriginRewound Origin = "rewound"
	// OriginCheckpoint: an agent went on with a call it held from before
	// a checkpoint, after the run had gone on from the checkpoint.
	OriginCheckpoint Origin = "checkpoint"
	// OriginConsoleFork: a person forked the run in the Console, with the
	// context keys it changed.
	OriginConsoleFork Origin = "console_fork"
)

// Origins lists every branch origin.
func Origins() []Origin {
	return []Origin{OriginFirst, OriginRestart, OriginRewound, OriginCheckpoint, OriginConsoleFork}
}

// Part is the projection's record of one node: where it stands, the row
// and branch it is on, the attempts made at it, and what the act that
// made it recorded on arrival. It is stored as JSON, so its fields and
// tags are part of the database format.
type Part struct {
	Run  engine.RunID  `json:"run"`
	Node engine.NodeID `json:"node"`
	// Checkpoint says the node is a checkpoint: notes recorded while the
	// step of its row was pending, on the row of Head.
	Checkpoint bool `json:"checkpoint,omitempty"`
	// From is the node this one was made from (its parent in the log); 0
	// for a run's root.
	From engine.NodeID `json:"from,omitzero"`
	// Head is, for a checkpoint, the step node (or root) whose row it is
	// on; 0 for a step node, which heads its own row.
	Head engine.NodeID `json:"head,omitzero"`
	// Step is the step pending here, and At the cursor that reaches it;
	// both empty where the run is complete.
	Step workflow.StepID `json:"step,omitempty"`
	At   []run.Frame     `json:"at,omitempty"`
	// Branch is the index of the branch the node is on (0 is A).
	Branch int `json:"branch"`
	// Next is, for a row's node, the step node that continues the row on
	// its branch: the first one made from the row.
	Next engine.NodeID `json:"next,omitzero"`
	// Depth counts the steps done on the way to the node: the rows above
	// its own on its path (a run's root: 0; where the run completed,
	// every row of its path).
	Depth int `json:"depth,omitzero"`
	// Continued says the node continues its row's branch although the log
	// linked it as a fork: the row had only checkpoints below it.
	Continued bool `json:"continued,omitempty"`
	// Console says the Console made the node (a fork or a restart).
	Console bool `json:"console,omitempty"`
	// Created is the node's node_created; CreatedTime when it was
	// appended (0 where the log recorded no time).
	Created     engine.EventIndex `json:"created"`
	CreatedTime event.Millis      `json:"createdTime,omitzero"`
	// Linked is the event that linked the node under the node it was made
	// from (0 for the root, and until it is linked): the timeline's
	// stretches end at it.
	Linked engine.EventIndex `json:"linked,omitzero"`
	// Attempts are the ack attempts made at the node, in log order.
	Attempts []Attempt `json:"attempts,omitempty"`
	// Arrival is what the act that made the node recorded on it: the
	// notes and artifacts, gaps, divergences and capability observations
	// of the attempt that made it (a checkpoint's notes, for a
	// checkpoint).
	Arrival Facts `json:"arrival,omitzero"`
}

// Attempt is one ack attempt made at a node and how it came out.
type Attempt struct {
	Attempt engine.Attempt    `json:"attempt"`
	At      engine.EventIndex `json:"at"`
	Time    event.Millis      `json:"time,omitzero"`
	Blocked bool              `json:"blocked,omitempty"`
	// Blockers are the blocker codes of a blocked attempt; their words
	// are in its advance_recorded (At).
	Blockers []event.BlockerCode `json:"blockers,omitempty"`
	// To is the node an advance made.
	To engine.NodeID `json:"to,omitzero"`
	// Refused is what the attempt sent that was not taken, and why.
	Refused []Refusal `json:"refused,omitempty"`
	// Facts are what a blocked attempt observed, kept on the node it was
	// made at (an advance's are its To node's Arrival).
	Facts Facts `json:"facts,omitzero"`
}

// Refusal is a part of an attempt that was not recorded as sent: its
// notice's code and WorkRail's words for why.
type Refusal struct {
	Code event.NoticeCode `json:"code"`
	Why  string           `json:"why"`
}

// refusedCodes are the notices that say part of an attempt was not taken.
var refusedCodes = []event.NoticeCode{event.NoticeArtifactInvalid, event.NoticeUserResponseInvalid, event.NoticeTemplateUnfilled}

// maxWhy bounds a refusal's words kept in a part.
const maxWhy = 400

// Facts are what an act recorded on one node.
type Facts struct {
	Outputs      []OutputRef         `json:"outputs,omitempty"`
	Gaps         []GapRef            `json:"gaps,omitempty"`
	Resolutions  []engine.EventIndex `json:"resolutions,omitempty"`
	Divergences  []engine.EventIndex `json:"divergences,omitempty"`
	Capabilities []CapabilityRef     `json:"capabilities,omitempty"`
	Traces       []engine.EventIndex `json:"traces,omitempty"`
}

// OutputRef is one node_output_appended: where it is in the log and
// what it holds (the text is in the log).
type OutputRef struct {
	At        engine.EventIndex `json:"at"`
	Step      workflow.StepID   `json:"step"`
	Notes     bool              `json:"notes,omitempty"`
	Artifacts []string          `json:"artifacts,omitempty"` // their kinds
	// Carried are the gaps its wr.contracts.gaps artifacts carried, as
	// sent: the assembly lists those no gap record took as not recorded.
	Carried    []CarriedGap   `json:"carried,omitempty"`
	Supersedes engine.EventID `json:"supersedes,omitempty"`
}

// CarriedGap is one gap a gaps artifact carried, as the agent sent it.
type CarriedGap struct {
	Severity string `json:"severity,omitempty"`
	Summary  string `json:"summary"`
}

// maxCarried bounds the summary of a carried gap kept in a part.
const maxCarried = 200

// GapRef is one gap record that opens a gap, and what resolved it.
type GapRef struct {
	ID       engine.EventID    `json:"id"`
	At       engine.EventIndex `json:"at"`
	Severity event.GapSeverity `json:"severity"`
	Reason   event.GapReason   `json:"reason"`
	Step     workflow.StepID   `json:"step,omitempty"`
	// Summary is the gap's summary, cut to maxCarried: what tells a
	// carried gap that was recorded from one that was not.
	Summary string `json:"summary,omitempty"`
	// ResolvedBy is the first later record naming it (its event); 0
	// while it is open.
	ResolvedBy engine.EventIndex `json:"resolvedBy,omitzero"`
	ResolvedOn engine.NodeID     `json:"resolvedOn,omitzero"`
}

// Open says no record resolved the gap.
func (g GapRef) Open() bool { return g.ResolvedBy == 0 }

// OpenAt says the gap was open as of event upTo.
func (g GapRef) OpenAt(upTo engine.EventIndex) bool {
	return g.At <= upTo && (g.ResolvedBy == 0 || g.ResolvedBy > upTo)
}

// CapabilityRef is one capability observation.
type CapabilityRef struct {
	At      engine.EventIndex `json:"at"`
	Missing bool              `json:"missing,omitempty"`
}

// RunHead is the projection's record of one run: its workflow, its
// root, and its branches by index. (Its preferred tip and the status
// read there are the overview's, RunOverview.) It is stored as JSON, so
// its fields and tags are part of the database format.
type RunHead struct {
	Run          engine.RunID        `json:"run"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	RestartOf    engine.RunID        `json:"restartOf,omitzero"`
	StartedAt    engine.EventIndex   `json:"startedAt"`
	StartedTime  event.Millis        `json:"startedTime,omitzero"`
	Root         engine.NodeID       `json:"root,omitzero"`
	Branches     []BranchHead        `json:"branches,omitempty"`
}

// BranchHead is how one branch came to be.
type BranchHead struct {
	Origin Origin `json:"origin"`
	// First is the branch's first node; From the node it left (0 for the
	// first branch), and Attempt the attempt there that made First.
	First   engine.NodeID  `json:"first"`
	From    engine.NodeID  `json:"from,omitzero"`
	Attempt engine.Attempt `json:"attempt,omitzero"`
	// Changed are, for a Console fork, the context keys it changed from
	// the node it left, sorted.
	Changed []string `json:"changed,omitempty"`
}

// Parts is where the projection's records are kept: the store's
// buckets, or memory. A missing record is an error wrapping
// engine.ErrNotFound.
type Parts interface {
	Part(engine.RunID, engine.NodeID) (Part, error)
	PutPart(Part) error
	RunHead(engine.RunID) (RunHead, error)
	PutRunHead(RunHead) error
}

// Project folds the next event of a session into its projection records;
// r reads the node records as Index left them after e, and o is the
// overview after its Add of e.
//
// It keeps the run's summary in the overview too (its verdict, steps
// done, branches and forks: RunOverview), so lists of sessions read the
// projection's figures without reading a part.
func Project(ps Parts, r OverviewReader, o *Overview, e event.Event) error {
	var err error
	switch d := e.Data.(type) {
	case *event.RunStartedData:
		return ps.PutRunHead(RunHead{Run: e.Run, WorkflowID: d.WorkflowID, WorkflowHash: d.WorkflowHash, RestartOf: d.RestartOf,
			StartedAt: e.Index, StartedTime: e.AppendedAt})
	case *event.NodeCreatedData:
		ro := o.Run(e.Run)
		err = created(ps, r, e, d, ro != nil && ro.Root == e.Node)
	default:
		err = project(ps, r, e)
	}
	if err != nil || e.Run == 0 {
		return err
	}
	return summarize(ps, o.Run(e.Run))
}

// summarize keeps the overview's figures of run ro the projection's.
func summarize(ps Parts, ro *RunOverview) error {
	if ro == nil || ro.Tip == 0 {
		return nil
	}
	tip, err := ps.Part(ro.ID, ro.Tip)
	if err != nil {
		return err
	}
	h, err := ps.RunHead(ro.ID)
	if err != nil {
		return err
	}
	ro.Verdict = verdictAt(ro.Status, tip)
	ro.StepsDone, ro.Branches, ro.Forks = tip.Depth, len(h.Branches), max(0, len(h.Branches)-1)
	return nil
}

// verdictAt is a run's verdict read at its tip, whose status is s.
func verdictAt(s RunStatus, tip Part) Verdict {
	switch s {
	case Complete:
		return VerdictComplete
	case Blocked:
		if n := len(tip.Attempts); n > 0 && tip.Attempts[n-1].Blocked {
			for _, b := range tip.Attempts[n-1].Blockers {
				if b != event.BlockUserOnlyDependency {
					return VerdictBlocked
				}
			}
			return VerdictNeedsUser
		}
		return VerdictBlocked
	}
	return VerdictInProgress
}

func project(ps Parts, r OverviewReader, e event.Event) error {
	switch d := e.Data.(type) {
	case *event.EdgeCreatedData:
		return linkedPart(ps, r, e, d)
	case *event.AdvanceRecordedData:
		return changePart(ps, e.Run, e.Node, func(p *Part) { p.Attempts = append(p.Attempts, attemptOf(e, d)) })
	case *event.NodeOutputAppendedData:
		out := outputOf(e, d)
		return changeFacts(ps, e, func(f *Facts) { f.Outputs = append(f.Outputs, out) })
	case *event.GapRecordedData:
		if d.ResolvesGapID != "" {
			return resolved(ps, r, e, d.ResolvesGapID)
		}
		g := GapRef{ID: e.ID, At: e.Index, Severity: d.Severity, Reason: d.Reason, Step: d.RelatedStepID, Summary: Cut(d.Summary, maxCarried)}
		return changeFacts(ps, e, func(f *Facts) { f.Gaps = append(f.Gaps, g) })
	case *event.DivergenceRecordedData:
		return changeFacts(ps, e, func(f *Facts) { f.Divergences = append(f.Divergences, e.Index) })
	case *event.CapabilityObservedData:
		c := CapabilityRef{At: e.Index, Missing: d.Status == event.CapabilityUnavailable}
		return changeFacts(ps, e, func(f *Facts) { f.Capabilities = append(f.Capabilities, c) })
	case *event.DecisionTraceAppendedData:
		return changeFacts(ps, e, func(f *Facts) { f.Traces = append(f.Traces, e.Index) })
	}
	return nil
}

// created records a new node where it stands; its row and branch are
// known once it is linked, but for a run's root, which is its first
// branch's first node.
func created(ps Parts, r OverviewReader, e event.Event, d *event.NodeCreatedData, root bool) error {
	pos, err := positionOf(r, d.Snapshot)
	if err != nil {
		return err
	}
	p := Part{Run: e.Run, Node: e.Node, Checkpoint: d.NodeKind == event.NodeCheckpoint, Created: e.Index, CreatedTime: e.AppendedAt,
		Console: e.Origin == event.OriginConsole}
	if pos.Kind == run.Pending {
		p.Step, p.At = pos.Step, slices.Clone(pos.Path)
	}
	if root {
		h, err := ps.RunHead(e.Run)
		if err != nil {
			return err
		}
		origin := OriginFirst
		if h.RestartOf != 0 {
			origin = OriginRestart
		}
		h.Root, h.Branches = e.Node, []BranchHead{{Origin: origin, First: e.Node}}
		if err := ps.PutRunHead(h); err != nil {
			return err
		}
	}
	return ps.PutPart(p)
}

// PositionReader is a Reader that reads where a snapshot stands without
// decoding all of it (a store that has it at hand).
type PositionReader interface {
	Position(engine.SnapshotRef) (run.Position, error)
}

func positionOf(r Reader, ref engine.SnapshotRef) (run.Position, error) {
	if pr, ok := r.(PositionReader); ok {
		return pr.Position(ref)
	}
	snap, err := r.Snapshot(ref)
	return snap.Position, err
}

// linkedPart places a node just linked under its parent: a checkpoint on
// its parent's row; a step node continuing the row it was made from, or
// starting a branch when that row already went on.
func linkedPart(ps Parts, r OverviewReader, e event.Event, d *event.EdgeCreatedData) error {
	to, err := ps.Part(e.Run, d.To)
	if err != nil {
		return err
	}
	from, err := ps.Part(e.Run, d.From)
	if err != nil {
		return err
	}
	to.From, to.Linked = d.From, e.Index
	head := from
	if from.Checkpoint {
		if head, err = ps.Part(e.Run, from.Head); err != nil {
			return err
		}
	}
	if to.Checkpoint {
		to.Head, to.Branch, to.Depth = head.Node, head.Branch, head.Depth
		return ps.PutPart(to)
	}
	to.Depth = head.Depth
	if head.Step != "" { // a row: its step was done to get here
		to.Depth++
	}
	made := madeBy(from, d.To)
	if to.CreatedTime == 0 && !to.Console && made != nil {
		// A log from before origins were recorded: the attempt number the
		// Console gives its forks is the only mark.
		to.Console = made.Attempt >= ConsoleAttempts
	}
	if head.Next == 0 || head.Next == d.To {
		head.Next, to.Branch = d.To, head.Branch
		to.Continued = d.EdgeKind == event.EdgeForkedFromNonTip
		if err := ps.PutPart(head); err != nil {
			return err
		}
		return ps.PutPart(to)
	}
	h, err := ps.RunHead(e.Run)
	if err != nil {
		return err
	}
	b := BranchHead{Origin: OriginRewound, First: d.To, From: d.From}
	if made != nil {
		b.Attempt = made.Attempt
	}
	switch {
	case to.Console:
		b.Origin = OriginConsoleFork
		if b.Changed, err = changedKeys(r, e.Run, d.From, d.To); err != nil {
			return err
		}
	default:
		if after, err := beforeCheckpoint(ps, e.Run, head, d.From); err != nil {
			return err
		} else if after {
			b.Origin = OriginCheckpoint
		}
	}
	to.Branch = len(h.Branches)
	h.Branches = append(h.Branches, b)
	if err := ps.PutRunHead(h); err != nil {
		return err
	}
	return ps.PutPart(to)
}

// madeBy is the attempt at from that made node to, if one did.
func madeBy(from Part, to engine.NodeID) *Attempt {
	for i := len(from.Attempts) - 1; i >= 0; i-- {
		if from.Attempts[i].To == to {
			return &from.Attempts[i]
		}
	}
	return nil
}

// beforeCheckpoint says the row headed by head went on from a checkpoint
// taken at node from or below it: an agent going on from from now holds
// a call it had before that checkpoint.
func beforeCheckpoint(ps Parts, id engine.RunID, head Part, from engine.NodeID) (bool, error) {
	next, err := ps.Part(id, head.Next)
	if err != nil {
		return false, err
	}
	for at := next.From; at != 0 && at != head.Node; {
		p, err := ps.Part(id, at)
		if err != nil {
			return false, err
		}
		if !p.Checkpoint {
			return false, nil
		}
		if p.From == from {
			return true, nil
		}
		at = p.From
	}
	return false, nil
}

// changedKeys lists the context keys whose value at node to differs from
// node from's, sorted.
func changedKeys(r OverviewReader, _ engine.RunID, from, to engine.NodeID) ([]string, error) {
	diff, err := ContextDiff(r, from, to)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(diff))
	for i, d := range diff {
		keys[i] = d.Key
	}
	return keys, nil
}

func attemptOf(e event.Event, d *event.AdvanceRecordedData) Attempt {
	a := Attempt{Attempt: d.Attempt, At: e.Index, Time: e.AppendedAt, Blocked: d.Outcome == event.OutcomeBlocked, To: d.ToNode}
	for _, b := range d.Blockers {
		a.Blockers = append(a.Blockers, b.Code)
	}
	for _, n := range d.Notices {
		if slices.Contains(refusedCodes, n.Code) {
			a.Refused = append(a.Refused, Refusal{Code: n.Code, Why: Cut(n.Message, maxWhy)})
		}
	}
	return a
}

func outputOf(e event.Event, d *event.NodeOutputAppendedData) OutputRef {
	o := OutputRef{At: e.Index, Step: d.StepID, Notes: strings.TrimSpace(d.NotesMarkdown) != "", Supersedes: d.Supersedes}
	for _, a := range d.Artifacts {
		kind := artifactKind(a)
		o.Artifacts = append(o.Artifacts, kind)
		if kind == string(workflow.ContractGaps) {
			o.Carried = append(o.Carried, carried(a)...)
		}
	}
	return o
}

// carried reads the gaps a gaps artifact carried, as far as they read.
func carried(a json.RawMessage) []CarriedGap {
	var g struct {
		Gaps []struct {
			Severity any `json:"severity"`
			Summary  any `json:"summary"`
		} `json:"gaps"`
	}
	if json.Unmarshal(a, &g) != nil {
		return nil
	}
	var out []CarriedGap
	for _, x := range g.Gaps {
		out = append(out, CarriedGap{Severity: Cut(text(x.Severity), maxCarried), Summary: Cut(text(x.Summary), maxCarried)})
	}
	return out
}

// text is a JSON value as a reader reads it: a string as it is, anything
// else as JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// changeFacts records a fact of event e on its node: on the node's last
// attempt when one was made there (a blocked attempt's observations, an
// advance's fork trace), else as what the act that made it recorded.
func changeFacts(ps Parts, e event.Event, f func(*Facts)) error {
	return changePart(ps, e.Run, e.Node, func(p *Part) {
		if n := len(p.Attempts); n > 0 {
			f(&p.Attempts[n-1].Facts)
			return
		}
		f(&p.Arrival)
	})
}

func changePart(ps Parts, id engine.RunID, node engine.NodeID, f func(*Part)) error {
	if node == 0 {
		return nil
	}
	p, err := ps.Part(id, node)
	if err != nil {
		return err
	}
	f(&p)
	return ps.PutPart(p)
}

// resolved marks the gap a record names resolved by it (the first record
// only: a second resolution, or one naming no gap, changes nothing) and
// counts the resolution on the node that recorded it.
func resolved(ps Parts, r OverviewReader, e event.Event, id engine.EventID) error {
	if err := changeFacts(ps, e, func(f *Facts) { f.Resolutions = append(f.Resolutions, e.Index) }); err != nil {
		return err
	}
	at, ok := eventIndexOf(id, e.Session)
	if !ok || at >= e.Index {
		return nil
	}
	g, err := r.Event(at)
	if err != nil {
		return err
	}
	if d, ok := g.Data.(*event.GapRecordedData); !ok || d.ResolvesGapID != "" || g.Node == 0 {
		return nil
	}
	return changePart(ps, g.Run, g.Node, func(p *Part) {
		mark := func(f *Facts) {
			for i := range f.Gaps {
				if f.Gaps[i].ID == id && f.Gaps[i].ResolvedBy == 0 {
					f.Gaps[i].ResolvedBy, f.Gaps[i].ResolvedOn = e.Index, e.Node
				}
			}
		}
		mark(&p.Arrival)
		for i := range p.Attempts {
			mark(&p.Attempts[i].Facts)
		}
	})
}

// eventIndexOf reads the index out of an event id of session s.
func eventIndexOf(id engine.EventID, s engine.SessionID) (engine.EventIndex, bool) {
	rest, ok := strings.CutPrefix(string(id), "evt_"+strconv.FormatUint(uint64(s), 10)+"_")
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseUint(rest, 10, 64)
	return engine.EventIndex(i), err == nil && i > 0
}
