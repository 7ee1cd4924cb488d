package execute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/golden"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// richSession records, in session 1 of r, everything a session can hold:
// a blocked attempt, a checkpoint, a preference change, gaps and a gap's
// resolution, a fork from a rewound chat, a fork at the root from the
// Console (a second run restarting the first) and notes throughout. It
// returns the session's id.
func richSession(t *testing.T, r *rig) engine.SessionID {
	t.Helper()
	probe := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.guided"})
	res, b := r.call(t, "continue", map[string]any{"stateToken": probe.StateToken, "ackToken": probe.AckToken})
	report := r.step(t, "continue", executetest.NextArgs(t, blockedOf(t, res, b)))
	cp := r.step(t, "checkpoint", checkpointArgs(report.StateToken, report.CheckpointToken, "# Halfway\n\nProbed the browser; writing the report next."))
	// Never-stop from here: the report's missing output becomes a gap.
	choose := r.step(t, "continue", map[string]any{"stateToken": cp.StateToken, "ackToken": cp.AckToken,
		"output": map[string]any{"notesMarkdown": "Reported without the gaps artifact."}, "preferences": map[string]any{"autonomy": "full_auto_never_stop"}})
	if len(choose.Gaps) == 0 {
		t.Fatalf("no gap recorded at choose: %s", choose.Text)
	}
	work := r.step(t, "continue", map[string]any{"stateToken": choose.StateToken, "ackToken": choose.AckToken,
		"output": map[string]any{"notesMarkdown": "Chose core.\nSecond line.", "resolvesGaps": []map[string]any{{"gapId": choose.Gaps[0].GapID, "summary": "wrote the report by hand"}}}})
	// A chat rewound to the report step acknowledges it again: a fork.
	r.step(t, "continue", map[string]any{"stateToken": report.StateToken, "ackToken": report.AckToken,
		"output": map[string]any{"notesMarkdown": "A rewound chat's report.", "artifacts": []any{map[string]any{"kind": "wr.contracts.gaps", "gaps": []any{}}}}})
	// The main branch moves on and is preferred again, correcting what
	// it said at the report step.
	var reported engine.EventID
	for _, e := range r.step(t, "continue", map[string]any{"stateToken": work.StateToken}).Recap.Entries {
		if e.NotesMarkdown == "Reported without the gaps artifact." {
			reported = e.Output
		}
	}
	r.step(t, "continue", map[string]any{"stateToken": work.StateToken, "ackToken": work.AckToken,
		"output":  map[string]any{"notesMarkdown": "Worked once. The report had its gaps after all: none.", "supersedesOutputId": reported},
		"context": map[string]any{"more": true}})
	sid := probe.Session.SessionID
	g := graphOf(t, r.store, sid)
	run1, _ := g.Run(1)
	if res, at := r.x.Fork(context.Background(), execute.Place{Session: sid, Run: 1, Node: run1.Root}, []byte(`{}`)); at.Run != 2 {
		b, _ := json.Marshal(res)
		t.Fatalf("fork at the root: %s", b)
	}
	return sid
}

func graphOf(t *testing.T, s *memstore.Store, id engine.SessionID) *project.Graph {
	t.Helper()
	evs, _, err := s.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	g, err := project.Fold(id, evs, func(ref engine.SnapshotRef) (snap run.Snapshot, err error) {
		err = s.View(id, func(tx execute.ReadTx) error {
			snap, err = tx.Snapshot(ref)
			return err
		})
		return snap, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// projection is what every surface reads of a session, from the store's
// log and indexes through engine/project, as JSON with its session id
// written as S so two sessions' projections compare: each run's DAG
// (nodes with their parent, kind, snapshot and attempts; edge kinds),
// preferred tip, status, pending step, effective preferences and shape;
// outputs with their supersedes linkage; gaps and their resolutions;
// blocked attempts; the overview the store keeps.
func projection(t *testing.T, s *memstore.Store, id engine.SessionID) string {
	t.Helper()
	g := graphOf(t, s, id)
	type node struct {
		project.Node
		Edge event.EdgeKind
	}
	type runView struct {
		project.RunSummary
		Nodes []node
	}
	var out struct {
		Runs     []runView
		Outputs  []event.Event
		Gaps     []project.GapState
		Blocked  []project.BlockedAttempt
		Overview project.Overview
		Prefs    []event.Event
	}
	for _, r := range g.Runs() {
		sum, err := project.Summarize(g, r)
		if err != nil {
			t.Fatal(err)
		}
		v := runView{RunSummary: sum}
		for _, n := range g.Nodes(r.ID) {
			k, _ := g.Edge(n.ID)
			v.Nodes = append(v.Nodes, node{n, k})
		}
		out.Runs = append(out.Runs, v)
	}
	for _, e := range g.Events() {
		switch e.Kind {
		case event.NodeOutputAppended:
			out.Outputs = append(out.Outputs, e)
		case event.PreferencesChanged:
			out.Prefs = append(out.Prefs, e)
		}
	}
	out.Gaps, out.Blocked = project.Gaps(g.Events()), g.BlockedAttempts()
	ov, err := s.Overview(id)
	if err != nil {
		t.Fatal(err)
	}
	out.Overview = ov
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return anonymous(b, id)
}

// anonymous writes session id as S in text.
func anonymous(b []byte, id engine.SessionID) string {
	n := fmt.Sprint(uint64(id))
	b = regexp.MustCompile(`evt_`+n+`_`).ReplaceAll(b, []byte("evt_S_"))
	b = regexp.MustCompile(`"ses_`+n+`"`).ReplaceAll(b, []byte(`"ses_S"`))
	b = regexp.MustCompile(`"Session": `+n+`,`).ReplaceAll(b, []byte(`"Session": "S",`))
	return string(b)
}

// finish drives every run of session id from its preferred tip to
// completion the way an agent that copies nextCall does, and returns the
// results' kinds in order.
func finish(t *testing.T, r *rig, id engine.SessionID) []string {
	t.Helper()
	var kinds []string
	for _, rn := range graphOf(t, r.store, id).Runs() {
		sum, err := project.Summarize(graphOf(t, r.store, id), rn)
		if err != nil {
			t.Fatal(err)
		}
		res := r.x.Resume(context.Background(), execute.Place{Session: id, Run: rn.ID, Node: sum.Tip.ID})
		for i := 0; res.ResultKind() != protocol.KindComplete; i++ {
			if i > 300 {
				t.Fatalf("%s of %s: no completion within 300 results", rn.ID, id)
			}
			kinds = append(kinds, string(res.ResultKind()))
			res = r.x.Continue(context.Background(), mustMarshal(t, executetest.NextArgs(t, res)))
		}
	}
	return kinds
}

func export(t *testing.T, x *execute.Service, id engine.SessionID, o bundle.ExportOptions) []byte {
	t.Helper()
	b, err := x.Export(id, o)
	if err != nil {
		t.Fatalf("export %s: %v", id, err)
	}
	return b
}

func importInto(t *testing.T, r *rig, b []byte) bundle.ImportReport {
	t.Helper()
	rep, err := r.x.Import(b, false)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return rep
}

// The equivalence gate: a session exported and imported into a fresh
// store projects exactly as the original, continues to completion the
// same way, and exports again to the same bytes but for where it came
// from and its session id.
func TestExportImportEquivalence(t *testing.T) {
	from := autonomyRig(t)
	id := richSession(t, from)
	b := export(t, from.x, id, bundle.ExportOptions{})

	// Into a fresh store, and into one whose session 1 exists: the
	// import never merges, it makes a session of its own.
	fresh, busy := autonomyRig(t), autonomyRig(t)
	richSession(t, busy)
	busyBefore := projection(t, busy.store, 1)
	for _, to := range []*rig{fresh, busy} {
		rep := importInto(t, to, b)
		if rep.Source != id || rep.Session == 0 || rep.Runs != 2 || rep.Events != len(from.events(t, id)) {
			t.Fatalf("report %+v", rep)
		}
		if got, want := projection(t, to.store, rep.Session), projection(t, from.store, id); got != want {
			t.Fatalf("the imported session projects otherwise:\n%s", lineDiff(want, got))
		}
		again := export(t, to.x, rep.Session, bundle.ExportOptions{})
		if !bytes.Contains(again, []byte(`"importedFrom":{"chainHead":"`+rep.SourceChainHead.String()+`","sessionId":"`+id.String()+`"}`)) {
			t.Fatal("the export of the imported session does not say where it came from")
		}
		if got := unmapped(t, again, id); !bytes.Equal(got, b) {
			t.Fatalf("export → import → export differs beyond the mapping:\n%s", lineDiff(string(b), string(got)))
		}
	}
	if busyBefore != projection(t, busy.store, 1) {
		t.Fatal("importing changed the session that was there")
	}
	// Both continue to completion, the same way.
	want := finish(t, from, id)
	got := finish(t, fresh, 1)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the imported session continued %v; the original %v", got, want)
	}
	if got, want := projection(t, fresh.store, 1), projection(t, from.store, id); got != want {
		t.Fatalf("after both continued, the projections differ:\n%s", lineDiff(want, got))
	}
}

// unmapped is bundle b of an imported session built again as its source
// session id had written it: every event's session and event ids, and
// its event-id references, mapped back to id, and the record of where it
// came from left out. Export → import → export is right when this gives
// the first export's bytes.
func unmapped(t *testing.T, b []byte, id engine.SessionID) []byte {
	t.Helper()
	v, err := bundle.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	back := func(ref engine.EventID) engine.EventID {
		if ref == "" {
			return ""
		}
		_, i, _ := strings.Cut(strings.TrimPrefix(string(ref), "evt_"), "_")
		return engine.EventID("evt_" + fmt.Sprint(uint64(id)) + "_" + i)
	}
	src := bundle.Source{Snapshots: v.Snapshots, Workflows: map[engine.WorkflowHash][]byte{}}
	for _, e := range v.Events {
		e.Session, e.ID = id, engine.NewEventID(id, e.Index)
		switch d := e.Data.(type) {
		case *event.SessionCreatedData:
			c := *d
			c.ImportedFrom = nil
			e.Data = &c
		case *event.NodeOutputAppendedData:
			c := *d
			c.Supersedes = back(c.Supersedes)
			e.Data = &c
		case *event.GapRecordedData:
			c := *d
			c.ResolvesGapID = back(c.ResolvesGapID)
			e.Data = &c
		}
		src.Events = append(src.Events, e)
	}
	for h, raw := range v.Bundle.Workflows {
		src.Workflows[h] = raw
	}
	out, err := bundle.Build(src, bundle.ExportOptions{RedactNotes: v.Bundle.Session.Redacted})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := bundle.Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// lineDiff shows the first lines where two texts differ.
func lineDiff(want, got string) string {
	w, g := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b []byte
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d:\nwant %s\ngot  %s", i+1, a, b)
		}
	}
	return "(equal)"
}

// Every bundled workflow, stopped halfway in the default mode (blocked
// attempts included), survives export and import: the same projection,
// the same bytes on export again, and the same way to completion.
func TestBundledWorkflowsSurviveExportImport(t *testing.T) {
	list, _ := newRig(t, nil).x.List(context.Background(), nil).(protocol.ListResult)
	if len(list.Workflows) < 7 {
		t.Fatalf("only %d bundled workflows", len(list.Workflows))
	}
	for _, w := range list.Workflows {
		t.Run(string(w.ID), func(t *testing.T) {
			from := newRig(t, nil)
			total := len(executetest.Drive(t, newRig(t, nil).x, w.ID, ""))
			id := drivePart(t, from, w.ID, total/2)
			b := export(t, from.x, id, bundle.ExportOptions{})
			to := newRig(t, nil)
			rep := importInto(t, to, b)
			if got, want := projection(t, to.store, rep.Session), projection(t, from.store, id); got != want {
				t.Fatalf("the imported session projects otherwise:\n%s", lineDiff(want, got))
			}
			if got := unmapped(t, export(t, to.x, rep.Session, bundle.ExportOptions{}), id); !bytes.Equal(got, b) {
				t.Fatalf("export → import → export differs beyond the mapping:\n%s", lineDiff(string(b), string(got)))
			}
			want, got := finish(t, from, id), finish(t, to, rep.Session)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("the imported session continued %v; the original %v", got, want)
			}
			if got, want := projection(t, to.store, rep.Session), projection(t, from.store, id); got != want {
				t.Fatalf("after both continued, the projections differ:\n%s", lineDiff(want, got))
			}
		})
	}
}

// drivePart starts workflow id and sends n continue calls the way an
// agent that copies nextCall does.
func drivePart(t *testing.T, r *rig, id engine.WorkflowID, n int) engine.SessionID {
	t.Helper()
	res := r.x.Start(context.Background(), mustMarshal(t, map[string]any{"workflowId": id, "context": executetest.RequiredInputs(t, r.x, id)}))
	s, ok := res.(protocol.StepResult)
	if !ok {
		t.Fatalf("start %s: %s", id, mustMarshal(t, res))
	}
	for i := 0; i < n && res.ResultKind() != protocol.KindComplete; i++ {
		res = r.x.Continue(context.Background(), mustMarshal(t, executetest.NextArgs(t, res)))
	}
	return s.Session.SessionID
}

// Exporting is deterministic: the same session gives the same bytes, and
// so do two stores that recorded the same calls.
func TestExportIsDeterministic(t *testing.T) {
	a, b := autonomyRig(t), autonomyRig(t)
	ida, idb := richSession(t, a), richSession(t, b)
	first := export(t, a.x, ida, bundle.ExportOptions{})
	if !bytes.Equal(first, export(t, a.x, ida, bundle.ExportOptions{})) {
		t.Fatal("two exports of one session differ")
	}
	if !bytes.Equal(first, export(t, b.x, idb, bundle.ExportOptions{})) {
		t.Fatal("two stores that recorded the same calls export different bytes")
	}
}

// A dry run verifies and reports what an import would add, and writes
// nothing; an import of content the store already holds adds no
// snapshot or workflow twice.
func TestImportDryRun(t *testing.T) {
	from := autonomyRig(t)
	b := export(t, from.x, richSession(t, from), bundle.ExportOptions{})
	to := autonomyRig(t)
	dry, err := to.x.Import(b, true)
	if err != nil {
		t.Fatal(err)
	}
	if to.store.Changes() != 0 {
		t.Fatal("a dry run wrote")
	}
	if ids, _ := to.store.SessionIDs(); len(ids) != 0 {
		t.Fatalf("a dry run made sessions %v", ids)
	}
	if !dry.DryRun || dry.Session != 0 || dry.SnapshotsAdded == 0 || dry.WorkflowsAdded != 1 || dry.SnapshotsPresent != 0 {
		t.Fatalf("dry run report %+v", dry)
	}
	real := importInto(t, to, b)
	if real.DryRun || real.Session != 1 || real.SnapshotsAdded != dry.SnapshotsAdded || real.Events != dry.Events || real.Nodes != dry.Nodes {
		t.Fatalf("import report %+v after dry run %+v", real, dry)
	}
	again := importInto(t, to, b)
	if again.Session != 2 || again.SnapshotsAdded != 0 || again.SnapshotsPresent != dry.SnapshotsAdded || again.WorkflowsPresent != 1 {
		t.Fatalf("a second import: %+v", again)
	}
}

// Later runs and nodes of an imported session take ids after the
// imported ones.
func TestImportedSessionGoesOnAfterItsIDs(t *testing.T) {
	from := autonomyRig(t)
	id := richSession(t, from)
	to := autonomyRig(t)
	rep := importInto(t, to, export(t, from.x, id, bundle.ExportOptions{}))
	g := graphOf(t, to.store, rep.Session)
	run1, _ := g.Run(1)
	nodes := len(g.Nodes(1)) + len(g.Nodes(2))
	res, at := to.x.Fork(context.Background(), execute.Place{Session: rep.Session, Run: 1, Node: run1.Root}, []byte(`{}`))
	if at.Run != 3 || at.Node != engine.NodeID(nodes+1) {
		t.Fatalf("a new run after the import is at %+v (%s); want run_3 at node_%d", at, mustMarshal(t, res), nodes+1)
	}
}

// Redaction replaces every note body, before digests, and says so; the
// bundle verifies and imports; gaps and steps stay readable.
func TestExportRedactsNotes(t *testing.T) {
	from := autonomyRig(t)
	id := richSession(t, from)
	b := export(t, from.x, id, bundle.ExportOptions{RedactNotes: true})
	for _, secret := range []string{"Chose core", "Halfway", "rewound chat's report", "Worked once"} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the redacted bundle still says %q", secret)
		}
	}
	v, err := bundle.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Bundle.Session.Redacted || v.Bundle.Session.Redaction != bundle.RedactNotes {
		t.Fatalf("the bundle does not say its notes are redacted: %+v", v.Bundle.Session)
	}
	for _, o := range v.Bundle.Outputs {
		if o.NotesMarkdown != bundle.RedactedMarker {
			t.Fatalf("output %s reads %q", o.ID, o.NotesMarkdown)
		}
	}
	if !bytes.Contains(b, []byte("wrote the report by hand")) || len(v.Bundle.Gaps) == 0 {
		t.Fatal("redaction hid the gaps")
	}
	to := autonomyRig(t)
	rep := importInto(t, to, b)
	if !rep.Redacted || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], bundle.RedactedMarker) {
		t.Fatalf("report %+v", rep)
	}
	if plain := export(t, from.x, id, bundle.ExportOptions{}); bytes.Equal(plain, b) {
		t.Fatal("the redacted bundle equals the plain one")
	}
}

// Export refuses what it cannot copy whole, as errors as data.
func TestExportRefusals(t *testing.T) {
	r := autonomyRig(t)
	id := richSession(t, r)
	if _, err := r.x.Export(id+1, bundle.ExportOptions{}); codeOf(err) != engine.CodeInvalidInput {
		t.Fatalf("export of no session: %v", err)
	}
	sick := execute.New(damaged{r.store}, executetest.Ring(t), catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow}), workflow.Preferences{}, executetest.Clock, t.Logf)
	if _, err := sick.Export(id, bundle.ExportOptions{}); codeOf(err) != engine.CodeSessionCorrupt {
		t.Fatalf("export of a damaged session: %v", err)
	}
	if _, err := sick.ExportMarkdown(id, bundle.ExportOptions{}); codeOf(err) != engine.CodeSessionCorrupt {
		t.Fatalf("markdown of a damaged session: %v", err)
	}
}

func codeOf(err error) engine.Code {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// The Markdown for a pull request is pinned: notes step by step,
// checkpoints, other branches, open and resolved gaps.
func TestExportMarkdownGolden(t *testing.T) {
	r := autonomyRig(t)
	id := richSession(t, r)
	md, err := r.x.ExportMarkdown(id, bundle.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "bundle_markdown.md"), []byte(md))
	again, _ := r.x.ExportMarkdown(id, bundle.ExportOptions{})
	if again != md {
		t.Fatal("two renderings of one session differ")
	}
}
