package daemon

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/workrail/workrail/console"
	"github.com/workrail/workrail/server/home"
)

// The daemon's errors reach the Console as they were logged, also after a
// restart; without --verbose nothing reaches stderr.
func TestDaemonLogFeedsTheConsole(t *testing.T) {
	h := home.Dir(t.TempDir())
	var stderr bytes.Buffer
	l := NewLog(h, false, &stderr)
	l.printf("console: render %s: %v", "/x", errors.New("boom"))
	l.Info("tool call", "tool", "list_workflows", "kind", "workflows")
	l.Error("tool call answered with an error", "tool", "continue_workflow", "kind", "error", "code", "TOKEN_SCOPE_MISMATCH",
		"session", "ses_4")
	l.Error("doctor failed", "err", "disk gone")
	want := []console.LoggedError{
		{Message: "doctor failed: disk gone"},
		{Tool: "continue_workflow", Code: "TOKEN_SCOPE_MISMATCH", Message: "tool call answered with an error", Session: 4},
		{Message: "console: render /x: boom"},
	}
	for name, got := range map[string][]console.LoggedError{"live": l.LastErrors(), "restarted": NewLog(h, false, &stderr).LastErrors()} {
		if len(got) != len(want) {
			t.Fatalf("%s: %d errors; want %d: %+v", name, len(got), len(want), got)
		}
		for i := range got {
			if got[i].Time.IsZero() {
				t.Errorf("%s: error %d has no time", name, i)
			}
			got[i].Time = want[i].Time
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: %+v\nwant %+v", name, got, want)
		}
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr without --verbose: %s", &stderr)
	}
}
