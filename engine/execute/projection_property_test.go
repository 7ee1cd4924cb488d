package execute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// propWorkflow has a plain step, a loop of three steps its last one
// decides, a step that needs the user's confirmation, and two more.
const propWorkflow = `{"id":"wr.prop","name":"Prop","description":"d","version":"1",
 "context":[{"name":"focus","type":"string","description":"what to look at"}],
 "steps":[
  {"id":"triage","title":"Triage","prompt":"triage {{focus}}"},
  {"id":"fix","title":"Fix loop","loop":{"kind":"while","maxIterations":3},"body":[
    {"id":"plan","title":"Plan","prompt":"plan"},
    {"id":"edit","title":"Edit","prompt":"edit"},
    {"id":"check","title":"Check","prompt":"check","output":{"contractRef":"wr.contracts.loop_control"}}]},
  {"id":"approve","title":"Approve","prompt":"approve","requireConfirmation":true},
  {"id":"report","title":"Report","prompt":"report"},
  {"id":"wrap","title":"Wrap up","prompt":"wrap"}]}`

// agentRun is what a generated agent holds of one run: every answer it
// was given that it could go on from, the latest last.
type agentRun struct {
	run  engine.RunID
	held []protocol.Result
}

// generated drives one session the way agents and people do, at random
// from seed: advances (with notes, decisions, confirmations, gaps
// artifacts valid and refused, resolutions), calls copied as they are
// (blocked, or gaps in a mode that never stops), rewound chats,
// checkpoints then the call held from before them, checkpoints gone on
// from, Console forks and restarts, and replays.
func generated(t *testing.T, r *rig, seed uint64) engine.SessionID {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed, 7))
	mode := []string{"wr.modes.guided", "wr.modes.full_auto_never_stop"}[rnd.IntN(2)]
	first, _ := r.call(t, "start", map[string]any{"workflowId": "wr.prop", "mode": mode, "context": map[string]any{"focus": "login"}})
	s := first.(protocol.StepResult)
	id := s.Session.SessionID
	runs := []*agentRun{{run: s.Session.RunID, held: []protocol.Result{first}}}
	var openGaps []engine.EventID
	for turn := 0; turn < 40; turn++ {
		ar := runs[rnd.IntN(len(runs))]
		latest := ar.held[len(ar.held)-1]
		if latest.ResultKind() == protocol.KindComplete {
			if rnd.IntN(3) > 0 {
				continue
			}
		}
		var res protocol.Result
		switch op := rnd.IntN(20); {
		case op < 10 && latest.ResultKind() != protocol.KindComplete: // go on, filled in
			res = r.x.Continue(context.Background(), mustJSON(t, propArgs(t, rnd, latest, openGaps)))
		case op < 12 && latest.ResultKind() != protocol.KindComplete: // the call copied as it is
			res = r.x.Continue(context.Background(), mustJSON(t, nextCallOf(latest)))
		case op < 14: // a rewound chat: an older answer's step, read again and done
			old := ar.held[rnd.IntN(len(ar.held))]
			st := stateOf(old)
			if st == "" {
				continue
			}
			re := r.x.Continue(context.Background(), mustJSON(t, map[string]any{"stateToken": st}))
			if re.ResultKind() != protocol.KindStep {
				continue
			}
			res = r.x.Continue(context.Background(), mustJSON(t, propArgs(t, rnd, re, openGaps)))
		case op < 16 && latest.ResultKind() == protocol.KindStep: // a checkpoint, then the call held from before it or the checkpoint's
			held := latest.(protocol.StepResult)
			cp := r.x.Checkpoint(context.Background(), mustJSON(t, map[string]any{"stateToken": held.StateToken, "checkpointToken": held.CheckpointToken,
				"output": map[string]any{"notesMarkdown": fmt.Sprintf("Progress so far, turn %d.", turn)}}))
			if cp.ResultKind() != protocol.KindStep {
				t.Fatalf("checkpoint: %s", cp.RenderedText())
			}
			from := latest
			if rnd.IntN(2) == 0 {
				from = cp
				ar.held = append(ar.held, cp)
			}
			res = r.x.Continue(context.Background(), mustJSON(t, propArgs(t, rnd, from, openGaps)))
		case op < 17: // a Console fork of a node with a parent
			var fork execute.Place
			must(r.store.View(id, func(tx execute.ReadTx) error {
				var nodes []project.Node
				for n := engine.NodeID(1); ; n++ {
					node, err := tx.Node(n)
					if err != nil {
						break
					}
					if node.Run == ar.run && node.Parent != 0 && node.Kind == event.NodeStep {
						nodes = append(nodes, node)
					}
				}
				if len(nodes) > 0 {
					fork = execute.Place{Session: id, Run: ar.run, Node: nodes[rnd.IntN(len(nodes))].ID}
				}
				return nil
			}), t)
			if fork.Node == 0 {
				continue
			}
			res, _ = r.x.Fork(context.Background(), fork, []byte(fmt.Sprintf(`{"focus":"fork %d"}`, turn)))
		case op < 18: // a restart from the Console
			var p execute.Place
			res, p = r.x.Restart(context.Background(), execute.Place{Session: id, Run: ar.run}, []byte(`{"focus":"again"}`))
			if p.Run != 0 && p.Run != ar.run {
				runs = append(runs, &agentRun{run: p.Run, held: []protocol.Result{res}})
				continue
			}
		default: // a replay of an answer already given
			if len(ar.held) > 1 {
				old := ar.held[rnd.IntN(len(ar.held)-1)]
				r.x.Continue(context.Background(), mustJSON(t, nextCallOf(old)))
			}
			continue
		}
		switch res.ResultKind() {
		case protocol.KindStep, protocol.KindBlocked, protocol.KindComplete:
			ar.held = append(ar.held, res)
		}
		openGaps = append(openGaps, gapsOf(res)...)
	}
	return id
}

// propArgs fills the next call of res as a deciding agent would, with a
// loop decision, a confirmation now and then, a gaps artifact (its
// severity sometimes not one WorkRail takes) and a resolution of an
// open gap now and then.
func propArgs(t *testing.T, rnd *rand.Rand, res protocol.Result, open []engine.EventID) protocol.ContinueArgs {
	t.Helper()
	var args protocol.ContinueArgs
	var step workflow.StepID
	switch v := res.(type) {
	case protocol.StepResult:
		args, step = executetest.Fill(t, v.NextCall.Arguments, v.Fills, "Did "+string(v.Pending.StepID)+".", 0), v.Pending.StepID
	case protocol.BlockedResult:
		args, step = executetest.Fill(t, v.NextCall.Arguments, v.Fills, "Did "+string(v.Pending.StepID)+".", 0), v.Pending.StepID
	default:
		t.Fatalf("no call after %s", res.ResultKind())
	}
	out := protocol.Output{NotesMarkdown: fmt.Sprintf("Did %s, note %d.", step, rnd.IntN(1000))}
	if args.Output != nil {
		out = *args.Output
		out.NotesMarkdown = fmt.Sprintf("Did %s, note %d.", step, rnd.IntN(1000))
	}
	if step == "check" {
		out.Artifacts = []json.RawMessage{json.RawMessage(`{"kind":"wr.loop_control","decision":"` + []string{"continue", "stop"}[rnd.IntN(2)] + `"}`)}
	}
	if step == "approve" && rnd.IntN(3) == 0 {
		out.Artifacts = nil // not confirmed: blocked, or a gap
	}
	if rnd.IntN(4) == 0 {
		sev := []string{"critical", "warning", "severe"}[rnd.IntN(3)]
		out.Artifacts = append(out.Artifacts, json.RawMessage(fmt.Sprintf(`{"kind":"wr.contracts.gaps","gaps":[{"severity":%q,"summary":"Could not check %s %d"}]}`, sev, step, rnd.IntN(100))))
	}
	if len(open) > 0 && rnd.IntN(5) == 0 {
		out.ResolvesGaps = []protocol.GapResolution{{GapID: open[rnd.IntN(len(open))], Summary: "Looked again and it holds."}}
	}
	args.Output = &out
	return args
}

func nextCallOf(res protocol.Result) protocol.ContinueArgs {
	switch v := res.(type) {
	case protocol.StepResult:
		return v.NextCall.Arguments
	case protocol.BlockedResult:
		return v.NextCall.Arguments
	}
	return protocol.ContinueArgs{StateToken: stateOf(res)}
}

func stateOf(res protocol.Result) string {
	switch v := res.(type) {
	case protocol.StepResult:
		return v.StateToken
	case protocol.BlockedResult:
		return v.StateToken
	case protocol.CompleteResult:
		return v.StateToken
	}
	return ""
}

func gapsOf(res protocol.Result) []engine.EventID {
	var out []engine.EventID
	if v, ok := res.(protocol.StepResult); ok {
		for _, g := range v.Gaps {
			out = append(out, g.GapID)
		}
	}
	return out
}

func must(err error, t *testing.T) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The projection of every generated run keeps its invariants against the
// raw events: every attempt counted once, on the row of the node it was
// made at; a line's rows are its workflow's steps at their cursors, loop
// iterations in order; letters never change as events are added; the
// verdict is complete exactly when the preferred tip is, and the open
// gaps are the gaps recorded and not resolved; the store keeps exactly
// the fold; the log records a fork only where the run had gone on; and
// every count a surface shows (runs/{id}.json, the session's overview
// the lists read, the Markdown export) is the projection's.
func TestProjectionOfGeneratedRuns(t *testing.T) {
	r := newRig(t, catalogOf(t, map[string]string{"wr.prop.json": propWorkflow}))
	var c *compile.Compiled
	shapes := map[string]int{}
	for seed := range uint64(40) {
		id := generated(t, r, seed)
		evs := r.events(t, id)
		snap := func(ref engine.SnapshotRef) (run.Snapshot, error) {
			var s run.Snapshot
			err := r.store.View(id, func(tx execute.ReadTx) error { var err error; s, err = tx.Snapshot(ref); return err })
			return s, err
		}
		if c == nil {
			must(r.store.View(id, func(tx execute.ReadTx) error {
				rn, err := tx.Run(1)
				if err != nil {
					return err
				}
				w, err := tx.Workflow(rn.WorkflowHash)
				c = &w
				return err
			}), t)
		}
		f := lettersNeverChange(t, id, evs, snap)
		for _, rid := range f.Lineage.Runs() {
			p, err := f.Projection(rid)
			must(err, t)
			stored, err := r.store.Projection(id, rid)
			must(err, t)
			if !reflect.DeepEqual(stored, p) {
				t.Fatalf("seed %d %s: the stored projection is not the fold of the log", seed, rid)
			}
			checkProjection(t, fmt.Sprintf("seed %d %s", seed, rid), p, f.Graph, evs, *c, shapes)
			surfacesAgree(t, fmt.Sprintf("seed %d %s", seed, rid), r, id, p, evs, *c)
			namesTheSameGaps(t, fmt.Sprintf("seed %d %s", seed, rid), f, p)
		}
		forksOnlyWhereTheRunWentOn(t, evs, snap)
	}
	for _, want := range []string{"blocked", "loop", "fork", "console_fork", "restart", "checkpoint row", "open gap", "resolved gap", "refused", "not recorded", "complete"} {
		if shapes[want] == 0 {
			t.Errorf("no generated run had a %s: %v", want, shapes)
		}
	}
}

// lettersNeverChange folds evs one event at a time and fails when a node
// changes branch, or a branch changes how it came to be.
func lettersNeverChange(t *testing.T, id engine.SessionID, evs []event.Event, snap project.SnapshotFunc) *project.Folder {
	t.Helper()
	f := project.NewFolder(id, snap)
	branchOf := map[engine.NodeID]int{}
	heads := map[engine.RunID][]project.BranchHead{}
	for _, e := range evs {
		must(f.Add(e), t)
		for _, h := range f.Lineage.Heads() {
			if had := heads[h.Run]; len(h.Branches) < len(had) || (len(had) > 0 && !reflect.DeepEqual(had, h.Branches[:len(had)])) {
				t.Fatalf("event %d: the branches of %s went from %+v to %+v", e.Index, h.Run, had, h.Branches)
			}
			heads[h.Run] = slices.Clone(h.Branches)
		}
		roots := map[engine.NodeID]bool{}
		for _, h := range f.Lineage.Heads() {
			roots[h.Root] = true
		}
		for _, p := range f.Lineage.AllParts() {
			if p.From == 0 && !roots[p.Node] {
				continue // not linked yet
			}
			if b, ok := branchOf[p.Node]; ok && b != p.Branch {
				t.Fatalf("event %d: %s went from branch %s to %s", e.Index, p.Node, project.Letter(b), project.Letter(p.Branch))
			}
			branchOf[p.Node] = p.Branch
		}
	}
	return f
}

// namesTheSameGaps checks that the gaps a complete answer names, read
// from the projection's records (project.OpenOnPathOf), are the ones the
// log's nodes hold open (project.OpenOnPath), at every node, as of the
// last event that touched it and as of now: an answer replayed after an
// upgrade names what it named first.
func namesTheSameGaps(t *testing.T, what string, f *project.Folder, p *project.Projection) {
	t.Helper()
	for _, b := range p.Branches {
		for _, n := range b.Nodes {
			info, err := f.Graph.Node(n)
			must(err, t)
			for _, upTo := range []engine.EventIndex{info.LastActivity, f.Graph.Head()} {
				want, err := project.OpenOnPath(f.Graph, info, upTo)
				must(err, t)
				got, err := project.OpenOnPathOf(f.Lineage, f.Graph, p.Run, n, upTo)
				must(err, t)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: at %s as of event %d the projection names %v open; the log %v", what, n, upTo, got, want)
				}
				var inMemory []engine.EventID
				for _, g := range p.OpenOnPath(n, upTo) {
					inMemory = append(inMemory, g.ID)
				}
				var ids []engine.EventID
				for _, g := range want {
					ids = append(ids, g.ID)
				}
				if !slices.Equal(inMemory, ids) {
					t.Fatalf("%s: at %s as of event %d the projection's OpenOnPath is %v; the log's %v", what, n, upTo, inMemory, ids)
				}
			}
		}
	}
}

func checkProjection(t *testing.T, what string, p *project.Projection, g *project.Graph, evs []event.Event, c compile.Compiled, shapes map[string]int) {
	t.Helper()
	// Every attempt once, on the row of the node it was made at.
	seen := map[[2]uint64]bool{}
	for _, row := range p.Rows {
		done, blocked := false, 0
		for _, a := range row.Attempts {
			k := [2]uint64{uint64(a.Node), uint64(a.Attempt.Attempt)}
			if seen[k] || p.RowOf(a.Node) != row.Node {
				t.Fatalf("%s: attempt %d at %s counted twice or on the row of %s", what, a.Attempt.Attempt, a.Node, row.Node)
			}
			seen[k] = true
			done = done || !a.Blocked
			if a.Blocked {
				blocked++
			}
		}
		if done != row.Done() || blocked != row.Blocked() {
			t.Fatalf("%s: row %s done %v blocked %d; its attempts say %v, %d", what, row.Node, row.Done(), row.Blocked(), done, blocked)
		}
		if blocked > 0 {
			shapes["blocked"]++
		}
		if len(row.Checkpoints) > 0 {
			shapes["checkpoint row"]++
		}
		if row.Continued {
			shapes["continued past a checkpoint"]++
		}
		if row.Outcome.Refused > 0 {
			shapes["refused"]++
		}
		if row.Outcome.NotRecorded > 0 {
			shapes["not recorded"]++
		}
		if row.Outcome.ResolvedGaps > 0 {
			shapes["resolved gap"]++
		}
	}
	for _, e := range evs {
		if d, ok := e.Data.(*event.AdvanceRecordedData); ok && e.Run == p.Run && !seen[[2]uint64{uint64(e.Node), uint64(d.Attempt)}] {
			t.Fatalf("%s: attempt %d at %s (event %d) is on no row", what, d.Attempt, e.Node, e.Index)
		}
	}
	if len(seen) != countAttempts(evs, p.Run) {
		t.Fatalf("%s: %d attempts on rows, %d in the log", what, len(seen), countAttempts(evs, p.Run))
	}
	// Each line's rows are the workflow's steps at their cursors, never
	// going back; a checkpoint starts no branch.
	for _, b := range p.Branches {
		if part, _ := p.Part(b.First); part.Checkpoint {
			t.Fatalf("%s: branch %s starts at checkpoint %s", what, b.Letter, b.First)
		}
		shapes[string(b.Origin)]++
		if b.Origin != project.OriginFirst && b.Origin != project.OriginRestart {
			shapes["fork"]++
		}
		var prev []run.Frame
		for at := b.First; at != 0; {
			row, ok := p.Row(at)
			if !ok || row.Node != at { // where the run completed: no row
				break
			}
			if row.Branch != p.BranchOf(b.First) {
				t.Fatalf("%s: row %s on branch %s's line is on %s", what, row.Node, b.Letter, project.Letter(row.Branch))
			}
			if got := stepAtCursor(c, row.At); got != row.Step {
				t.Fatalf("%s: row %s pends %s at cursor %v, which is %s", what, row.Node, row.Step, row.At, got)
			}
			if len(row.At) > 1 {
				shapes["loop"]++
			}
			if prev != nil && !cursorAfter(row.At, prev) {
				t.Fatalf("%s: branch %s goes from %v back to %v at %s", what, b.Letter, prev, row.At, row.Node)
			}
			prev, at = row.At, row.Next
		}
	}
	// The verdict and the open gaps, against the log.
	root, err := g.Node(p.Root)
	must(err, t)
	tip, err := project.PreferredTip(g, root)
	must(err, t)
	snap, err := g.Snapshot(tip.Snapshot)
	must(err, t)
	if tip.ID != p.Tip || (snap.Position.Kind == run.Complete) != (p.Verdict() == project.VerdictComplete) {
		t.Fatalf("%s: tip %s verdict %s; the log's preferred tip is %s (%s)", what, p.Tip, p.Verdict(), tip.ID, snap.Position.Kind)
	}
	if p.Verdict() == project.VerdictComplete {
		shapes["complete"]++
	}
	var want, got []engine.EventID
	for _, gap := range project.Gaps(evs) {
		if gap.Run == p.Run && !gap.Resolved() {
			want = append(want, gap.ID)
		}
	}
	for _, gap := range p.OpenGaps() {
		got = append(got, gap.ID)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Fatalf("%s: open gaps %v; the log's %v", what, got, want)
	}
	if len(got) > 0 {
		shapes["open gap"]++
	}
	if path := p.Path(p.Tip); p.StepsDone() != len(path)-1 && !(p.Complete() && p.StepsDone() == len(path)) {
		t.Fatalf("%s: %d steps done on a path of %d rows", what, p.StepsDone(), len(path))
	}
}

func countAttempts(evs []event.Event, id engine.RunID) int {
	n := 0
	for _, e := range evs {
		if _, ok := e.Data.(*event.AdvanceRecordedData); ok && e.Run == id {
			n++
		}
	}
	return n
}

// stepAtCursor is the step a cursor reaches in c.
func stepAtCursor(c compile.Compiled, at []run.Frame) workflow.StepID {
	list := c.Steps
	for i, f := range at {
		if f.Index >= len(list) {
			return ""
		}
		n := list[f.Index]
		if n.Loop == nil || i == len(at)-1 {
			if n.Step == nil {
				return ""
			}
			return n.Step.ID
		}
		list = n.Loop.Body
	}
	return ""
}

// cursorAfter says cursor a is later in a run than b: by the index at
// each level, an iteration counting before the index inside it.
func cursorAfter(a, b []run.Frame) bool {
	for i := 0; i < min(len(a), len(b)); i++ {
		if a[i].Iteration != b[i].Iteration {
			return a[i].Iteration > b[i].Iteration
		}
		if a[i].Index != b[i].Index {
			return a[i].Index > b[i].Index
		}
	}
	return len(a) != len(b)
}

// forksOnlyWhereTheRunWentOn checks the log's edges: an advance is linked
// as a fork exactly where a step node already stood below the node it was
// made at; one below which only checkpoints stood goes on the same line.
func forksOnlyWhereTheRunWentOn(t *testing.T, evs []event.Event, snap project.SnapshotFunc) {
	t.Helper()
	g := project.NewGraph(evs[0].Session, snap)
	for _, e := range evs {
		if d, ok := e.Data.(*event.EdgeCreatedData); ok && d.EdgeKind != event.EdgeCheckpoint {
			from, err := g.Node(d.From)
			must(err, t)
			wentOn, err := project.WentOn(g, from)
			must(err, t)
			if wentOn != (d.EdgeKind == event.EdgeForkedFromNonTip) {
				t.Fatalf("event %d links %s under %s as %s; the run had gone on from it: %v", e.Index, d.To, d.From, d.EdgeKind, wentOn)
			}
		}
		must(g.Add(e), t)
	}
}

// surfacesAgree holds what the surfaces that show run p count to the
// projection and the log: the JSON document (the blocked attempts of its
// rows are the log's), the overview the session lists read, and the
// run's Markdown export.
func surfacesAgree(t *testing.T, what string, r *rig, id engine.SessionID, p *project.Projection, evs []event.Event, c compile.Compiled) {
	t.Helper()
	d := p.Document(id, &c)
	var v1, v2 bytes.Buffer
	enc := json.NewEncoder(&v1)
	enc.SetEscapeHTML(false)
	must(enc.Encode(d), t)
	must(d.WriteJSON(&v2), t)
	if !bytes.Equal(v1.Bytes(), v2.Bytes()) {
		t.Fatalf("%s: the document's JSON is not encoding/json's:\n got %s\nwant %s", what, v2.Bytes(), v1.Bytes())
	}
	blocked := 0
	for _, row := range d.Rows {
		blocked += row.BlockedAttempts
	}
	logBlocked := 0
	for _, e := range evs {
		if a, ok := e.Data.(*event.AdvanceRecordedData); ok && e.Run == p.Run && a.Outcome == event.OutcomeBlocked {
			logBlocked++
		}
	}
	if d.Verdict != p.Verdict() || d.StepsDone != p.StepsDone() || len(d.OpenGaps) != len(p.OpenGaps()) ||
		len(d.Branches) != len(p.Branches) || len(d.Rows) != len(p.Rows) || blocked != logBlocked {
		t.Fatalf("%s: the document says %s, %d steps done, %d open gaps, %d branches, %d rows, %d blocked; the projection %s, %d, %d, %d, %d and the log %d blocked",
			what, d.Verdict, d.StepsDone, len(d.OpenGaps), len(d.Branches), len(d.Rows), blocked, p.Verdict(), p.StepsDone(), len(p.OpenGaps()), len(p.Branches), len(p.Rows), logBlocked)
	}
	o, err := r.store.Overview(id)
	must(err, t)
	ro := o.Run(p.Run)
	if ro == nil || ro.Verdict != p.Verdict() || ro.StepsDone != p.StepsDone() || ro.Branches != len(p.Branches) ||
		ro.Forks != len(p.Branches)-1 || o.OpenGapsOf(p.Run) != len(p.OpenGaps()) {
		t.Fatalf("%s: the overview's run %+v (%d open gaps); the projection %s, %d steps done, %d branches, %d open gaps",
			what, ro, o.OpenGapsOf(p.Run), p.Verdict(), p.StepsDone(), len(p.Branches), len(p.OpenGaps()))
	}
	md, err := r.x.RunMarkdown(id, p.Run)
	must(err, t)
	if want := fmt.Sprintf("- %s, %s\n", plural(p.StepsDone(), "step done", "steps done"), plural(len(p.OpenGaps()), "open gap", "open gaps")); !strings.Contains(md, want) {
		t.Fatalf("%s: the Markdown export lacks %q:\n%s", what, want, md)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
