package protocol_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
)

// A result about a run gets its run's Console page, made of the run's ids
// alone, in consoleUrl and once as its text's last line; others are left
// as they are.
func TestWithConsoleLink(t *testing.T) {
	v := minimalView()
	url := "http://127.0.0.1:7421" + protocol.RunPage(v.Session.SessionID, v.Session.RunID)
	runScoped := []protocol.Result{
		protocol.NewStep(v, minimalPending(), protocol.Progress{Part: 1, Parts: 1}),
		protocol.NewBlocked(v, minimalPending(), allBlockers[:1]),
		protocol.NewComplete(v),
	}
	for _, r := range runScoped {
		got := protocol.WithConsoleLink(r, "http://127.0.0.1:7421")
		var m map[string]any
		json.Unmarshal(mustJSON(t, got), &m)
		text := got.RenderedText()
		if m["consoleUrl"] != url || m["text"] != text {
			t.Errorf("%s: consoleUrl %v, want %s", r.ResultKind(), m["consoleUrl"], url)
		}
		if want := strings.TrimRight(r.RenderedText(), "\n") + "\n\nConsole: " + url + "\n"; text != want {
			t.Errorf("%s: text ends %q", r.ResultKind(), text[max(0, len(text)-80):])
		}
		if again := protocol.WithConsoleLink(r, "http://127.0.0.1:7421"); again.RenderedText() != text {
			t.Errorf("%s: the same result links differently twice", r.ResultKind())
		}
		if same := protocol.WithConsoleLink(r, ""); same.RenderedText() != r.RenderedText() {
			t.Errorf("%s: linked with no Console", r.ResultKind())
		}
	}
	e := protocol.NewError(engine.Errorf(engine.CodeInvalidInput, "m"))
	if got := protocol.WithConsoleLink(e, "http://127.0.0.1:7421"); got.RenderedText() != e.RenderedText() {
		t.Error("an error result got a link")
	}
	if got, want := protocol.RunURI(7, 2), "workrail://sessions/ses_7/runs/run_2"; got != want {
		t.Errorf("RunURI %s, want %s", got, want)
	}
}
