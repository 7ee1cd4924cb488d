package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
)

// answering is a Tools whose every tool answers r, or panics when r is nil.
type answering struct{ r protocol.Result }

func (a answering) answer([]byte) protocol.Result {
	if a.r == nil {
		panic("a bug")
	}
	return a.r
}
func (a answering) List(_ context.Context, raw []byte) protocol.Result    { return a.answer(raw) }
func (a answering) Inspect(_ context.Context, raw []byte) protocol.Result { return a.answer(raw) }
func (a answering) StartFrom(_ context.Context, raw []byte, _ string) protocol.Result {
	return a.answer(raw)
}
func (a answering) Continue(_ context.Context, raw []byte) protocol.Result   { return a.answer(raw) }
func (a answering) Checkpoint(_ context.Context, raw []byte) protocol.Result { return a.answer(raw) }
func (a answering) StartSessionFrom(_ context.Context, raw []byte, _ string) protocol.Result {
	return a.answer(raw)
}
func (a answering) ResumeSession(_ context.Context, raw []byte) protocol.Result { return a.answer(raw) }

// Each tool call is one line: tool, session when the result names one,
// kind, the code of an error, and the duration; never the arguments.
func TestEveryToolCallIsOneLogLine(t *testing.T) {
	session := protocol.SessionRef{SessionID: 7, RunID: 1}
	for _, tc := range []struct {
		name   string
		tool   protocol.ToolName
		r      protocol.Result
		level  string
		msg    string
		fields map[string]any // besides time, level, msg and durationMs
	}{
		{"step", protocol.ToolStart, protocol.StepResult{Kind: protocol.KindStep, Session: session}, "INFO", "tool call",
			map[string]any{"tool": "start_workflow", "session": "ses_7", "kind": "step"}},
		{"blocked", protocol.ToolContinue, protocol.BlockedResult{Kind: protocol.KindBlocked, Session: session}, "INFO", "tool call",
			map[string]any{"tool": "continue_workflow", "session": "ses_7", "kind": "blocked"}},
		{"complete", protocol.ToolContinue, protocol.CompleteResult{Kind: protocol.KindComplete, Session: session}, "INFO", "tool call",
			map[string]any{"tool": "continue_workflow", "session": "ses_7", "kind": "complete"}},
		{"no session", protocol.ToolList, protocol.ListResult{Kind: protocol.KindWorkflows}, "INFO", "tool call",
			map[string]any{"tool": "list_workflows", "kind": "workflows"}},
		{"error", protocol.ToolContinue, protocol.NewError(engine.Errorf(engine.CodeTokenBadSignature, "the token was not signed by this WorkRail")),
			"ERROR", "tool call answered with an error", map[string]any{"tool": "continue_workflow", "kind": "error", "code": "TOKEN_BAD_SIGNATURE"}},
		{"error about a session", protocol.ToolContinue, withAbout(protocol.NewError(engine.Errorf(engine.CodeTokenScopeMismatch, "the ackToken belongs to another step")), 7),
			"ERROR", "tool call answered with an error", map[string]any{"tool": "continue_workflow", "session": "ses_7", "kind": "error", "code": "TOKEN_SCOPE_MISMATCH"}},
		{"cancelled", protocol.ToolContinue, protocol.NewError(engine.Errorf(engine.CodeCancelled, "the call was cancelled")),
			"INFO", "tool call cancelled", map[string]any{"tool": "continue_workflow", "kind": "error", "code": "CANCELLED"}},
		{"panic", protocol.ToolInspect, nil, "ERROR", "tool call panicked",
			map[string]any{"tool": "inspect_workflow", "err": "a bug"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			s := NewMCPServer(answering{tc.r}, protocol.Features{}, "test", slog.New(slog.NewJSONHandler(&logs, nil)))
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + string(tc.tool) + `","arguments":{"notes":"the user's secret"}}}`
			reply, err := json.Marshal(s.HandleMessage(context.Background(), []byte(call)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.r == nil && !strings.Contains(string(reply), "panic") {
				t.Errorf("the panicking call was answered %s", reply)
			}
			lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
			if len(lines) != 1 || strings.Contains(logs.String(), "secret") {
				t.Fatalf("want one line without the arguments; got:\n%s", &logs)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(lines[0]), &got); err != nil {
				t.Fatal(err)
			}
			if ms, ok := got["durationMs"].(float64); !ok || ms < 0 {
				t.Errorf("durationMs = %v", got["durationMs"])
			}
			if got["level"] != tc.level || got["msg"] != tc.msg {
				t.Errorf("level %v, msg %v; want %s, %s", got["level"], got["msg"], tc.level, tc.msg)
			}
			for _, k := range []string{"time", "level", "msg", "durationMs"} {
				delete(got, k)
			}
			if g, w := mustJSON(t, got), mustJSON(t, tc.fields); g != w {
				t.Errorf("fields %s; want %s", g, w)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The server lists and serves only the tools the features turn on: a
// gated-off tool is neither in tools/list nor callable.
func TestServesOnlyTheToolsFeaturesTurnOn(t *testing.T) {
	step := protocol.StepResult{Kind: protocol.KindStep}
	tests := []struct {
		name   string
		f      protocol.Features
		listed []string // sorted, as tools/list answers
	}{
		{"none", protocol.Features{}, []string{"continue_workflow", "inspect_workflow", "list_workflows", "start_workflow"}},
		{"checkpoint and start_session", protocol.Features{CheckpointWorkflow: true, StartSession: true},
			[]string{"checkpoint_workflow", "continue_workflow", "inspect_workflow", "list_workflows", "start_session", "start_workflow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewMCPServer(answering{step}, tt.f, "test", slog.New(slog.DiscardHandler))
			reply, _ := json.Marshal(s.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)))
			var list struct {
				Result struct{ Tools []struct{ Name string } }
			}
			if err := json.Unmarshal(reply, &list); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range list.Result.Tools {
				names = append(names, tl.Name)
			}
			if !reflect.DeepEqual(names, tt.listed) {
				t.Errorf("tools/list %v; want %v", names, tt.listed)
			}
			for _, name := range []string{"checkpoint_workflow", "start_session"} {
				call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
				reply, _ := json.Marshal(s.HandleMessage(context.Background(), []byte(call)))
				served := !strings.Contains(string(reply), `"error"`)
				if want := slices.Contains(tt.listed, name); served != want {
					t.Errorf("%s: served %v, want %v: %s", name, served, want, reply)
				}
			}
		})
	}
}

func withAbout(r protocol.ErrorResult, id engine.SessionID) protocol.ErrorResult {
	r.About = id
	return r
}
