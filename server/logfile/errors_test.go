package logfile_test

import (
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/server/logfile"
)

// logger logs JSON lines to the log at path and remembers errors in e.
func logger(path string, e *logfile.Errors) (*slog.Logger, *logfile.File) {
	f := logfile.New(path, logfile.Options{})
	return slog.New(slog.NewMultiHandler(slog.NewJSONHandler(f, nil), e)).With("pid", 42), f
}

// The handler keeps the last errors, newest first, with their attributes;
// another one loads the same from the file, as a restarted daemon does.
func TestErrorsRemembersTheLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "workrail.log")
	live := logfile.NewErrors(3)
	log, f := logger(path, live)
	defer f.Close()
	for i := range 5 {
		log.Info("tool call", "tool", "list_workflows", "kind", "workflows")
		log.Error("tool call", "tool", "continue_workflow", "code", fmt.Sprintf("CODE_%d", i))
	}
	log.WithGroup("g").Error("internal", "op", "advance", slog.Group("h", "x", 1))
	log.Warn("starting the daemon")

	loaded := logfile.NewErrors(3)
	if err := loaded.Load(path); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		msg   string
		attrs map[string]string
	}{
		{"internal", map[string]string{"pid": "42", "g.op": "advance", "g.h.x": "1"}},
		{"tool call", map[string]string{"pid": "42", "tool": "continue_workflow", "code": "CODE_4"}},
		{"tool call", map[string]string{"pid": "42", "tool": "continue_workflow", "code": "CODE_3"}},
	}
	for name, got := range map[string][]logfile.Record{"live": live.Last(), "loaded": loaded.Last()} {
		if len(got) != len(want) {
			t.Fatalf("%s: %d errors; want %d: %+v", name, len(got), len(want), got)
		}
		for i, w := range want {
			if name == "loaded" && i == 0 {
				// The file holds the group as JSON.
				w.attrs = map[string]string{"pid": "42", "g": `{"op":"advance","h":{"x":1}}`}
			}
			if got[i].Message != w.msg || !maps.Equal(got[i].Attrs, w.attrs) || got[i].Time.IsZero() {
				t.Errorf("%s[%d] = %+v; want %s %v", name, i, got[i], w.msg, w.attrs)
			}
		}
	}
	for i, r := range loaded.Last() {
		if !r.Time.Equal(live.Last()[i].Time) {
			t.Errorf("loaded[%d] at %v; logged at %v", i, r.Time, live.Last()[i].Time)
		}
	}
}

// Load reads the newest rotated file before the log, only the end of
// each, and skips lines it cannot read.
func TestLoadReadsTheEndOfTheLastTwoFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "workrail.log")
	entry := func(msg string) string {
		return `{"time":"2026-03-04T05:06:07Z","level":"ERROR","msg":"` + msg + `"}` + "\n"
	}
	filler := strings.Repeat(`{"time":"2026-03-04T05:06:07Z","level":"INFO","msg":"tool call"}`+"\n", 20000)
	files := map[string]string{
		path + ".2": entry("too old"),
		path + ".1": entry("far back") + filler + entry("rotated"),
		path:        entry("current") + `{"level":"ERROR","msg":"no time"}` + "\nnot json \"level\":\"ERROR\"\n" + entry("newest"),
	}
	for name, text := range files {
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := logfile.NewErrors(10)
	if err := e.Load(path); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range e.Last() {
		got = append(got, r.Message)
	}
	if want := "newest current rotated"; strings.Join(got, " ") != want {
		t.Errorf("loaded %q; want %q", got, want)
	}
	if err := logfile.NewErrors(5).Load(filepath.Join(dir, "none.log")); err != nil {
		t.Errorf("a home without a log: %v", err)
	}
}
