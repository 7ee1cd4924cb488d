package logfile_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/server/logfile"
)

// BenchmarkToolCallLine is the cost of one tool call's line through slog's
// JSON handler into the rotating file.
func BenchmarkToolCallLine(b *testing.B) {
	f := logfile.New(filepath.Join(b.TempDir(), "workrail.log"), logfile.Options{})
	defer f.Close()
	log := slog.New(slog.NewJSONHandler(f, nil)).With("proc", "daemon", "pid", 42)
	for b.Loop() {
		log.Info("tool call", "tool", "continue_workflow", "session", "ses_12", "kind", "step", "durationMs", 1.234)
	}
}

// BenchmarkLoad is what a daemon spends at start reading the last errors
// back from a full log and a full rotated one.
func BenchmarkLoad(b *testing.B) {
	path := filepath.Join(b.TempDir(), "workrail.log")
	var text strings.Builder
	for i := 0; text.Len() < logfile.DefaultMaxBytes-200; i++ {
		level := "INFO"
		if i%100 == 0 {
			level = "ERROR"
		}
		fmt.Fprintf(&text, `{"time":"2026-03-04T05:06:07Z","level":%q,"msg":"tool call","proc":"daemon","pid":42,"tool":"continue_workflow","session":"ses_%d","kind":"step","durationMs":1.234}`+"\n", level, i)
	}
	for _, name := range []string{path, path + ".1"} {
		if err := os.WriteFile(name, []byte(text.String()), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if err := logfile.NewErrors(5).Load(path); err != nil {
			b.Fatal(err)
		}
	}
}
