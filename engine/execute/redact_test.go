package execute_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/workflow"
)

// planted is every private thing secretSession records, each where an
// agent, a person or the workspace puts it.
var planted = []string{
	"/home/victim/secret-repo",                 // the workspace path
	"feature/secret-branch-7",                  // a git branch
	"5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7", // a commit
	"/home/victim/repo-root",                   // a repository root
	"SECRET-context-ticket",                    // a context value
	"/home/victim/.aws/credentials",            // a nested context value
	"SECRET-checkpoint-note",                   // checkpoint notes
	"SECRET-report-note",                       // step notes
	"SECRET-gap-summary",                       // a gap an agent reported
	"SECRET-gap-how",                           // how to resolve it
	"SECRET-resolution",                        // a resolution's summary
	"ghp_SECRETuserTOKEN0123456789",            // a user's answer
	"SECRET-rewound-note",                      // a forked branch's note
}

// plantedRig is an autonomy rig whose workspace shows planted git facts.
func plantedRig(t *testing.T) *rig {
	t.Helper()
	s := memstore.New()
	o := &seeing{facts: []event.ObservationRecordedData{
		{Key: event.ObsGitBranch, Value: "feature/secret-branch-7"},
		{Key: event.ObsGitHeadSHA, Value: "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7"},
		{Key: event.ObsRepoRoot, Value: "/home/victim/repo-root"},
	}}
	wf := catalogOf(t, map[string]string{"wr.auto.json": autonomyWorkflow})
	return &rig{store: s, x: execute.New(s, executetest.Ring(t), wf, workflow.Preferences{}, executetest.Clock, t.Logf, execute.WithObserver(o))}
}

// secretSession records every planted thing in a session of r that
// blocks, checkpoints, records and resolves gaps, takes a user's answer
// and forks, and stops with its loop still running.
func secretSession(t *testing.T, r *rig) engine.SessionID {
	t.Helper()
	probe := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.guided", "workspacePath": "/home/victim/secret-repo",
		"context": map[string]any{"more": true, "ticket": "SECRET-context-ticket",
			"nested": map[string]any{"path": "/home/victim/.aws/credentials", "tries": 3, "files": []any{"a", "b"}}}})
	res, b := r.call(t, "continue", map[string]any{"stateToken": probe.StateToken, "ackToken": probe.AckToken})
	report := r.step(t, "continue", executetest.NextArgs(t, blockedOf(t, res, b)))
	cp := r.step(t, "checkpoint", checkpointArgs(report.StateToken, report.CheckpointToken, "SECRET-checkpoint-note"))
	gaps := map[string]any{"kind": "wr.contracts.gaps", "gaps": []any{map[string]any{"summary": "SECRET-gap-summary", "severity": "warning", "howToResolve": "SECRET-gap-how"}}}
	choose := r.step(t, "continue", map[string]any{"stateToken": cp.StateToken, "ackToken": cp.AckToken,
		"output": map[string]any{"notesMarkdown": "SECRET-report-note", "artifacts": []any{gaps}}})
	if len(choose.Gaps) == 0 {
		t.Fatalf("no gap recorded at choose: %s", choose.Text)
	}
	work := r.step(t, "continue", map[string]any{"stateToken": choose.StateToken, "ackToken": choose.AckToken,
		"output": map[string]any{"notesMarkdown": "Chose.", "artifacts": []any{map[string]any{"kind": "wr.user_response", "response": "ghp_SECRETuserTOKEN0123456789"}},
			"resolvesGaps": []map[string]any{{"gapId": choose.Gaps[0].GapID, "summary": "SECRET-resolution"}}}})
	// A chat rewound to the report acknowledges it again: a fork.
	r.step(t, "continue", map[string]any{"stateToken": report.StateToken, "ackToken": report.AckToken,
		"output": map[string]any{"notesMarkdown": "SECRET-rewound-note", "artifacts": []any{map[string]any{"kind": "wr.contracts.gaps", "gaps": []any{}}}}})
	// The main branch moves on, and is preferred again.
	r.step(t, "continue", map[string]any{"stateToken": work.StateToken, "ackToken": work.AckToken,
		"output": map[string]any{"notesMarkdown": "Worked once."}})
	return probe.Session.SessionID
}

// A redacted export holds none of what was planted, verifies, imports as
// a session of its own with the same structure, is found by
// resume_session, rehydrates, and continues to completion the way the
// original does.
func TestRedactedExportImportsAndResumes(t *testing.T) {
	from := plantedRig(t)
	id := secretSession(t, from)
	plain := export(t, from.x, id, bundle.ExportOptions{})
	for _, s := range planted {
		if !bytes.Contains(plain, []byte(s)) {
			t.Fatalf("the plain export lacks %q: the session does not record what the test plants", s)
		}
	}
	b := export(t, from.x, id, bundle.ExportOptions{Redact: true})
	for _, s := range planted {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("the redacted bundle still holds %q", s)
		}
	}
	if both := export(t, from.x, id, bundle.ExportOptions{Redact: true, RedactNotes: true}); !bytes.Equal(both, b) {
		t.Error("--redact with --redact-notes differs from --redact alone")
	}
	v, err := bundle.Read(b)
	if err != nil {
		t.Fatalf("the redacted bundle does not verify: %v", err)
	}
	s := v.Bundle.Session
	if !s.Redacted || s.Redaction != bundle.RedactAll || v.Bundle.Version != bundle.SchemaVersion || s.WorkspacePath != "" {
		t.Fatalf("the bundle's session says %+v (version %d)", s, v.Bundle.Version)
	}
	checkMaskedShapes(t, v)

	to := plantedRig(t)
	rep := importInto(t, to, b)
	if rep.Redaction != bundle.RedactAll || len(rep.Warnings) != 1 {
		t.Fatalf("report %+v", rep)
	}
	if got, want := structure(t, to, rep.Session), structure(t, from, id); got != want {
		t.Fatalf("the imported session's structure differs:\n%s", lineDiff(want, got))
	}
	// resume_session finds it (by its workflow) and hands a state token
	// for the tip; the rehydrate it asks for reads the pending step.
	res := to.x.ResumeSession(context.Background(), mustMarshal(t, map[string]any{"query": "wr.auto"}))
	found, ok := res.(protocol.ResumeResult)
	if !ok || len(found.Candidates) == 0 || found.Candidates[0].Session.SessionID != rep.Session {
		t.Fatalf("resume_session does not offer the imported session: %s", mustMarshal(t, res))
	}
	hydrated := to.step(t, "continue", found.Candidates[0].NextCall.Arguments)
	if hydrated.Pending.StepID != "work" {
		t.Fatalf("the rehydrate is at %s; want work", hydrated.Pending.StepID)
	}
	// The masked context keeps its flag, so the loop runs as it did.
	if got, want := finish(t, to, rep.Session), finish(t, from, id); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the imported session continued %v; the original %v", got, want)
	}
}

// checkMaskedShapes holds the masked values to their types: strings stay
// strings, numbers numbers, flags and list lengths as they were.
func checkMaskedShapes(t *testing.T, v *bundle.Verified) {
	t.Helper()
	var seen bool
	for _, snap := range v.Snapshots {
		if snap.Context == nil {
			continue
		}
		seen = true
		got, _ := json.Marshal(snap.Context["nested"])
		if snap.Context["ticket"] != bundle.RedactedMarker || snap.Context["more"] == nil ||
			string(got) != `{"files":["[redacted]","[redacted]"],"path":"[redacted]","tries":0}` {
			t.Fatalf("a snapshot's context reads %v", snap.Context)
		}
	}
	if !seen {
		t.Fatal("no snapshot has a context")
	}
	for _, o := range v.Bundle.Outputs {
		for _, a := range o.Artifacts {
			var m map[string]any
			if json.Unmarshal(a, &m) != nil || m["kind"] == bundle.RedactedMarker {
				t.Fatalf("artifact %s lost its kind", a)
			}
		}
	}
}

// structure is a session as ids, kinds and states: each run's status,
// pending step and tip, its nodes with their kind and parent, its
// outputs' steps and its gaps' reasons and resolutions, in order.
func structure(t *testing.T, r *rig, id engine.SessionID) string {
	t.Helper()
	g := graphOf(t, r.store, id)
	var b bytes.Buffer
	for _, rn := range g.Runs() {
		sum, err := project.Summarize(g, rn)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s %s pending %s tip %s\n", rn.ID, rn.WorkflowID, sum.Status, sum.Pending, sum.Tip.ID)
		for _, n := range g.Nodes(rn.ID) {
			k, _ := g.Edge(n.ID)
			fmt.Fprintf(&b, "  %s %s under %s by %s, %d outputs\n", n.ID, n.Kind, n.Parent, k, len(n.Outputs))
		}
	}
	for _, gap := range project.Gaps(g.Events()) {
		fmt.Fprintf(&b, "gap %s %s %s resolved %t\n", gap.Run, gap.Gap.Reason, gap.Gap.Severity, gap.Resolved())
	}
	return b.String()
}

// The Markdown export carries no raw HTML from what an agent wrote
// (rendered as a renderer that passes raw HTML, no element of it is
// made), and with Redact none of what was planted.
func TestMarkdownExportIsInert(t *testing.T) {
	r := plantedRig(t)
	probe := r.step(t, "start", map[string]any{"workflowId": "wr.auto", "mode": "wr.modes.full_auto_never_stop"})
	hostile := "<script>alert(1)</script>\n<img src=x onerror=alert(2)>\n`ok` <iframe src=javascript:alert(3)></iframe>"
	gaps := map[string]any{"kind": "wr.contracts.gaps", "gaps": []any{map[string]any{"summary": "<svg onload=alert(4)>", "severity": "warning", "howToResolve": "<details open ontoggle=alert(5)>"}}}
	next := r.step(t, "continue", map[string]any{"stateToken": probe.StateToken, "ackToken": probe.AckToken,
		"output": map[string]any{"notesMarkdown": hostile}})
	r.step(t, "continue", map[string]any{"stateToken": next.StateToken, "ackToken": next.AckToken,
		"output": map[string]any{"notesMarkdown": "```\n<b>code</b>\n```\n" + hostile, "artifacts": []any{gaps}}})
	id := probe.Session.SessionID
	for _, o := range []bundle.ExportOptions{{}, {Redact: true}} {
		md, err := r.x.ExportMarkdown(id, o)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe())).Convert([]byte(md), &out); err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`<(?:script|img|iframe|svg|details)\b`).FindString(out.String()); m != "" {
			t.Errorf("the Markdown (%+v) renders a raw %s:\n%s", o, m, md)
		}
		if o.Redact && (strings.Contains(md, "alert(") || strings.Contains(md, "/home/victim") || !strings.Contains(md, "Redacted:")) {
			t.Errorf("the redacted Markdown says what it should not, or not that it is redacted:\n%s", md)
		}
		if !o.Redact && !strings.Contains(md, "&lt;script>alert(1)&lt;/script>") {
			t.Errorf("the Markdown does not show the note's text:\n%s", md)
		}
	}
}
