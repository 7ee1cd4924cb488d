package execute

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/fill"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// advance records one ack attempt. An attempt already recorded is answered
// from its record; a new one is evaluated and its outcome (advanced or
// blocked) appended in one transaction, which returns the facts the
// answer is rendered from once it has committed.
// secrets is the SECRET_REDACTED notice of in, already redacted: it is
// recorded with a new attempt.
// origin says who made the call: the agent, or the Console forking.
func (s *Service) advance(ctx context.Context, n node, attempt engine.Attempt, in protocol.ContinueInput, secrets []event.Notice, origin event.Origin) (protocol.Result, error) {
	update := func(fn func(Tx) error) error { return s.store.Update(n.session, s.writing(ctx, origin, fn)) }
	return s.rendered(inTx(update, func(tx Tx) (reply, error) {
		rec, err := tx.RecordedAttempt(n.id, attempt)
		if err == nil {
			return s.replay(tx, n, rec, in)
		}
		if !errors.Is(err, engine.ErrNotFound) {
			return reply{}, err
		}
		a, err := s.prepare(tx, n, attempt, in)
		if err != nil {
			return reply{}, err
		}
		a.notices = append(secrets, a.notices...)
		if rec, err = s.record(tx, a); err != nil {
			return reply{}, err
		}
		return s.fromRecord(tx, n, rec, nil)
	}))
}

// attemptIn is one new ack attempt, checked and ready to record.
type attemptIn struct {
	loaded
	n        node
	attempt  engine.Attempt
	step     *compile.Step
	place    run.Place
	in       protocol.ContinueInput
	prefs    workflow.Preferences
	changed  bool
	resolves []event.GapRecordedData
	notices  []event.Notice
}

// prepare checks everything that can make the call itself wrong (nothing
// is recorded for those) and works out the effective preferences.
func (s *Service) prepare(tx ReadTx, n node, attempt engine.Attempt, in protocol.ContinueInput) (attemptIn, error) {
	l, err := s.load(tx, n)
	if err != nil {
		return attemptIn{}, err
	}
	place, pending := run.PendingStep(l.c, l.snap)
	if !pending {
		return attemptIn{}, engine.Errorf(engine.CodeInvalidInput, "this run is already complete; there is nothing to acknowledge.")
	}
	warnings, e := protocol.CheckContext(l.c.Workflow, in.Context, false)
	if e != nil {
		return attemptIn{}, e
	}
	a := attemptIn{loaded: l, n: n, attempt: attempt, step: place.Step, place: place, in: in, prefs: l.snap.Preferences, notices: protocol.Notices(warnings)}
	if in.Preferences != nil {
		a.prefs = outcome.Apply(l.snap.Preferences, *in.Preferences)
		a.changed = a.prefs != l.snap.Preferences
	}
	if out := in.Output; out != nil {
		if a.resolves, err = resolutions(tx, n.session, out.ResolvesGaps); err != nil {
			return attemptIn{}, err
		}
		if err := checkSupersedes(tx, n.session, l.info, out.SupersedesOutputID, out.NotesMarkdown != "" || len(out.Artifacts) > 0); err != nil {
			return attemptIn{}, err
		}
	}
	return a, nil
}

// resolutions turns output.resolvesGaps into gap records that link to the
// gaps they resolve; each must name a gap of this session.
func resolutions(tx ReadTx, sid engine.SessionID, rs []protocol.GapResolution) ([]event.GapRecordedData, error) {
	var out []event.GapRecordedData
	for i, r := range rs {
		ptr := fmt.Sprintf("/output/resolvesGaps/%d", i)
		idx, ok := eventIndex(r.GapID, sid)
		var g *event.GapRecordedData
		if ok {
			if ev, err := tx.Event(idx); err == nil {
				g, _ = ev.Data.(*event.GapRecordedData)
			}
		}
		if g == nil {
			return nil, engine.Errorf(engine.CodeInvalidInput, "%s: %q is not a gap of this session; use a gapId from gapsRecorded", ptr, r.GapID).With("pointer", ptr+"/gapId")
		}
		if strings.TrimSpace(r.Summary) == "" || fill.IsTemplate(r.Summary) {
			return nil, engine.Errorf(engine.CodeInvalidInput, "%s: say in summary, in your own words, how the gap was resolved", ptr).With("pointer", ptr+"/summary")
		}
		out = append(out, event.GapRecordedData{Reason: g.Reason, Dependency: g.Dependency, Severity: g.Severity,
			Summary: r.Summary, RelatedStepID: g.RelatedStepID, ResolvesGapID: r.GapID})
	}
	return out, nil
}

// eventIndex reads an event id of session sid ("evt_<session>_<index>").
func eventIndex(id engine.EventID, sid engine.SessionID) (engine.EventIndex, bool) {
	rest, ok := strings.CutPrefix(string(id), fmt.Sprintf("evt_%d_", uint64(sid)))
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseUint(rest, 10, 64)
	return engine.EventIndex(i), err == nil && i > 0
}

// record evaluates the attempt through the mode matrix and appends its
// outcome.
func (s *Service) record(tx Tx, a attemptIn) (event.Event, error) {
	ev := s.judge(a)
	dec := outcome.Decide(a.prefs.Autonomy, ev.Reasons)
	notes := append(a.notices, ev.Notices...)
	if len(dec.Blockers) > 0 {
		return s.recordBlocked(tx, a, ev, dec, notes)
	}
	at := a.snap
	at.Preferences = a.prefs // the walk decides in the attempt's mode
	move, err := run.Advance(a.c, at, a.in.Context, ev.Stop)
	if err != nil {
		return event.Event{}, err
	}
	next := move.Snapshot
	next.Preferences, next.Capabilities = a.prefs, observe(a.snap.Capabilities, ev.Observations)
	notes = append(notes, lateNotices(move.Late)...)
	if a.changed {
		notes = append(notes, protocol.Notices(recommendationWarnings(a.c, a.prefs))...)
	}
	// Below a node with only checkpoints under it the step is still
	// pending (an agent that checkpointed, then sent the call it held):
	// going on from it continues the line, and is no fork.
	forks, err := project.WentOn(tx, a.info)
	if err != nil {
		return event.Event{}, err
	}
	var fork *event.Fork
	if forks {
		if fork, err = project.Branches(tx, a.info); err != nil {
			return event.Event{}, err
		}
	}
	child, err := tx.NewNodeID()
	if err != nil {
		return event.Event{}, err
	}
	rec, err := tx.Append(a.n.run, a.n.id, &event.AdvanceRecordedData{Attempt: a.attempt, KeyID: uint32(s.keys.Active()),
		Outcome: event.OutcomeAdvanced, ToNode: child, Skipped: move.Skipped, LoopExits: move.LoopExits, Notices: notes, Fork: fork})
	if err != nil {
		return event.Event{}, err
	}
	if err := appendChild(tx, a, child, next, ev, forks); err != nil {
		return event.Event{}, err
	}
	return rec, appendFacts(tx, a, child, ev, dec, move)
}

// lateNotices tell the agent (and the log) of each step or loop skipped
// earlier that the move runs now, out of order.
func lateNotices(late []run.Late) []event.Notice {
	var out []event.Notice
	for _, l := range late {
		out = append(out, event.Notice{Code: event.NoticeSkippedStepRunsLate, Message: lateText(l)})
	}
	return out
}

func lateText(l run.Late) string {
	return fmt.Sprintf("%s (%s) was skipped earlier, for its condition %s did not hold; the context sent since satisfies it, so it runs now, out of order "+
		"(a workflow in the TypeScript WorkRail's format reconsiders a skipped step after each advance)", l.StepID, l.Title, l.Condition)
}

// recordBlocked records an attempt the mode matrix blocked: the step stays
// pending, and what the agent observed is kept on the node it observed it
// at.
func (s *Service) recordBlocked(tx Tx, a attemptIn, ev outcome.Evaluation, dec outcome.Decision, notes []event.Notice) (event.Event, error) {
	if a.changed {
		notes = append(notes, event.Notice{Code: event.NoticePreferencesNotApplied,
			Message: "the preferences sent were not applied because the attempt was blocked; send them again with the retry"})
	}
	rec, err := tx.Append(a.n.run, a.n.id, &event.AdvanceRecordedData{Attempt: a.attempt, KeyID: uint32(s.keys.Active()),
		Outcome: event.OutcomeBlocked, Blockers: dec.Blockers, Notices: notes})
	if err != nil {
		return rec, err
	}
	for i := range ev.Observations {
		if _, err := tx.Append(a.n.run, a.n.id, &ev.Observations[i]); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// observe folds strong capability observations into the branch's state;
// weak ones (manual claims) never change it.
func observe(prev map[workflow.Capability]event.CapabilityStatus, obs []event.CapabilityObservedData) map[workflow.Capability]event.CapabilityStatus {
	out := map[workflow.Capability]event.CapabilityStatus{}
	for k, v := range prev {
		out[k] = v
	}
	for _, o := range obs {
		if o.Provenance.Strong() {
			out[o.Capability] = o.Status
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// judge reads the attempt at its step: what it sent, less what still
// holds WorkRail's template, against what the step needs (at the
// snapshot's context and loop place, which is what the prompt showed).
func (s *Service) judge(a attemptIn) outcome.Evaluation {
	var sent outcome.Attempt
	if a.in.Output != nil {
		sent.Notes, sent.Artifacts = a.in.Output.NotesMarkdown, a.in.Output.Artifacts
	}
	sent.Scope = run.Scope(a.c, a.snap)
	sent.Need = run.Need(a.step, sent.Scope)
	sent.Ask = outcome.AskOf(a.c, a.step, a.snap.Preferences.Autonomy, sent.Need)
	sent.Observed = a.snap.Capabilities
	return outcome.Judge(a.c, a.step, sent)
}

// appendChild creates the child node, its edge and the output judged
// worth recording: what the agent wrote, never WorkRail's template.
func appendChild(tx Tx, a attemptIn, child engine.NodeID, next run.Snapshot, ev outcome.Evaluation, fork bool) error {
	ref, err := tx.PutSnapshot(next)
	if err != nil {
		return err
	}
	if _, err := tx.Append(a.n.run, child, &event.NodeCreatedData{NodeKind: event.NodeStep, Snapshot: ref}); err != nil {
		return err
	}
	if err := appendEdge(tx, a.n, child, fork, len(a.info.Children)); err != nil {
		return err
	}
	if ev.Notes != "" || len(ev.Artifacts) > 0 {
		d := &event.NodeOutputAppendedData{StepID: a.step.ID, NotesMarkdown: ev.Notes, Artifacts: ev.Artifacts, Supersedes: a.in.Output.SupersedesOutputID}
		if _, err := tx.Append(a.n.run, child, d); err != nil {
			return err
		}
	}
	return nil
}

// appendEdge links parent to child. A parent the run already went on
// from is a rewound chat advancing again: the new branch is a fork, and
// why is traced.
func appendEdge(tx Tx, n node, child engine.NodeID, fork bool, siblings int) error {
	kind := event.EdgeAckedStep
	if fork {
		kind = event.EdgeForkedFromNonTip
		trace := &event.DecisionTraceAppendedData{TraceKind: event.TraceDetectedNonTipAdvance,
			Summary: fmt.Sprintf("%s already had %d child node(s); advancing again forked a new branch", n.id, siblings)}
		if _, err := tx.Append(n.run, n.id, trace); err != nil {
			return err
		}
	}
	_, err := tx.Append(n.run, child, &event.EdgeCreatedData{EdgeKind: kind, From: n.id, To: child})
	return err
}

// appendFacts records, on the child, what the attempt disclosed: changed
// preferences, capability observations, divergences and gaps.
func appendFacts(tx Tx, a attemptIn, child engine.NodeID, ev outcome.Evaluation, dec outcome.Decision, move run.Move) error {
	var ps []event.Payload
	if a.changed {
		ps = append(ps, &event.PreferencesChangedData{Delta: *a.in.Preferences, Effective: a.prefs})
	}
	for i := range ev.Observations {
		ps = append(ps, &ev.Observations[i])
	}
	for i := range ev.Divergences {
		ps = append(ps, &ev.Divergences[i])
	}
	gaps := append(append(append([]event.GapRecordedData(nil), dec.Gaps...), ev.Disclosed...), moveGaps(move)...)
	gaps = append(gaps, a.resolves...)
	for i := range gaps {
		ps = append(ps, &gaps[i])
	}
	for _, p := range ps {
		if _, err := tx.Append(a.n.run, child, p); err != nil {
			return err
		}
	}
	for _, l := range move.Late { // the Console's record of a step run out of order
		trace := &event.DecisionTraceAppendedData{TraceKind: event.TraceSkippedStepRunsLate, Summary: lateText(l)}
		if _, err := tx.Append(a.n.run, child, trace); err != nil {
			return err
		}
	}
	if a.changed {
		return traceRecommendation(tx, node{session: a.n.session, run: a.n.run, id: child}, a.c, a.prefs)
	}
	return nil
}

// moveGaps are the gaps a move leaves: the loops it skipped for want of
// their input (full_auto_never_stop), and those that ended at their
// bound instead of their condition, whose work may be unfinished.
func moveGaps(move run.Move) []event.GapRecordedData {
	out := slices.Clone(move.Gaps)
	for _, e := range move.LoopExits {
		if e.Reason == event.MaxIterations {
			out = append(out, event.GapRecordedData{Reason: event.GapAssumptionMade, Severity: event.SeverityWarning, RelatedStepID: e.LoopID,
				Summary:      fmt.Sprintf("loop %s stopped at its maximum of %d iterations, not because its condition was met", e.LoopID, e.Iterations),
				HowToResolve: "Check whether the loop's work is finished; if not, continue it in a new run or by hand"})
		}
	}
	return out
}

// recommendationWarnings compares effective preferences with the
// workflow's recommendation; exceeding it is allowed, never blocked.
func recommendationWarnings(c compile.Compiled, p workflow.Preferences) []protocol.Warning {
	var ws []protocol.Warning
	for _, why := range outcome.Exceeds(p, c.RecommendedPreferences) {
		ws = append(ws, protocol.Warning{Code: event.NoticePreferencesExceedRecommendation,
			Message: fmt.Sprintf("%s for %s; continuing as chosen. Recommended: %s", why, c.ID, recommended(c.RecommendedPreferences))})
	}
	return ws
}

func recommended(p *workflow.Preferences) string {
	var parts []string
	if p.Autonomy != "" {
		parts = append(parts, "autonomy "+string(p.Autonomy))
	}
	if p.RiskPolicy != "" {
		parts = append(parts, "riskPolicy "+string(p.RiskPolicy))
	}
	return strings.Join(parts, ", ")
}

// traceRecommendation records, on node n, that its preferences exceed the
// workflow's recommendation.
func traceRecommendation(tx Tx, n node, c compile.Compiled, p workflow.Preferences) error {
	why := outcome.Exceeds(p, c.RecommendedPreferences)
	if len(why) == 0 {
		return nil
	}
	_, err := tx.Append(n.run, n.id, &event.DecisionTraceAppendedData{TraceKind: event.TraceRecommendationExceeded, Summary: strings.Join(why, "; ")})
	return err
}
