package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/protocol"
)

// A tool answer of protocol.MaxAnswerBytes is written whole; one byte
// more is answered PAYLOAD_TOO_LARGE instead, saying how large it would
// be, whether answers writes it or the MCP library does, and logged.
func TestAnswersOverTheLimitAreRefused(t *testing.T) {
	const id = `1`
	msg := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"st1"}}}`
	// The prompt is in the answer once (structuredContent only): each
	// byte of it is one byte more.
	withPrompt := func(n int) protocol.Result {
		return protocol.StepResult{Kind: protocol.KindStep, Text: "Do it.", Pending: protocol.Pending{StepID: "s", Prompt: strings.Repeat("p", n)},
			Warnings: []protocol.Warning{}}
	}
	var empty bytes.Buffer
	if err := writeAnswer(&empty, json.RawMessage(id), withPrompt(0), false); err != nil {
		t.Fatal(err)
	}
	fill := protocol.MaxAnswerBytes - empty.Len()
	paths := []struct {
		name  string
		serve func(*toolCalls) http.Handler
	}{
		{"answers", func(c *toolCalls) http.Handler {
			return &answers{calls: c, next: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("passed on") })}
		}},
		{"library", library},
	}
	for _, p := range paths {
		for _, tc := range []struct {
			name  string
			size  int
			under bool
		}{{"at the limit", fill, true}, {"one byte over", fill + 1, false}} {
			t.Run(p.name+"/"+tc.name, func(t *testing.T) {
				var logs bytes.Buffer
				calls := newToolCalls(answering{withPrompt(tc.size)}, protocol.Features{}, slog.New(slog.NewJSONHandler(&logs, nil)), "")
				got := mcpPost(t, p.serve(calls), msg)
				if tc.under {
					if len(got) != protocol.MaxAnswerBytes || !bytes.Contains(got, []byte(`"kind":"step"`)) {
						t.Fatalf("answer of %d bytes: %.200s", len(got), got)
					}
					return
				}
				var answer struct {
					Result struct {
						IsError    bool `json:"isError"`
						Structured struct {
							Error struct {
								Code    string         `json:"code"`
								Message string         `json:"message"`
								Details map[string]int `json:"details"`
							} `json:"error"`
						} `json:"structuredContent"`
					} `json:"result"`
				}
				if err := json.Unmarshal(got, &answer); err != nil {
					t.Fatalf("%v: %.300s", err, got)
				}
				e := answer.Result.Structured.Error
				if !answer.Result.IsError || e.Code != "PAYLOAD_TOO_LARGE" || e.Details["answerBytes"] <= protocol.MaxAnswerBytes ||
					!strings.Contains(e.Message, "over the limit of 16,777,216 (16 MiB) for one answer") {
					t.Fatalf("answer %.600s", got)
				}
				if !strings.Contains(logs.String(), `"msg":"tool answer over the limit"`) {
					t.Errorf("not logged:\n%s", &logs)
				}
			})
		}
	}
}
