package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine"
)

// TestConfigCommand drives `workrail config` against a home with no
// daemon: every change is checked before config.json is written, and a
// refused one leaves the file as it was.
func TestConfigCommand(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	path := filepath.Join(home, "config.json")
	steps := []struct {
		args   string
		code   int
		stdout string // substring
		file   string // config.json after the step; "" for absent
	}{
		{"config get retentionDays", 0, "60\n", ""},
		{"config set retentionDays 30", 0, "It applies when the daemon starts.", "{\n  \"retentionDays\": 30\n}\n"},
		{"config set console.pageSize 5", 1, "", "{\n  \"retentionDays\": 30\n}\n"},
		{"config set retentionDay 5", 1, "", "{\n  \"retentionDays\": 30\n}\n"},
		{"config set defaultMode wr.modes.full_auto_never_stop", 0, "defaultMode = \"wr.modes.full_auto_never_stop\"",
			"{\n  \"defaultMode\": \"wr.modes.full_auto_never_stop\",\n  \"retentionDays\": 30\n}\n"},
		{"config get defaultMode", 0, "\"wr.modes.full_auto_never_stop\"\n", "{\n  \"defaultMode\": \"wr.modes.full_auto_never_stop\",\n  \"retentionDays\": 30\n}\n"},
		{"config unset defaultMode", 0, "defaultMode = \"wr.modes.guided\"", "{\n  \"retentionDays\": 30\n}\n"},
		{"config", 0, "30                 (not running)  runtime-safe", "{\n  \"retentionDays\": 30\n}\n"},
		{"config schema", 0, `"$schema": "https://json-schema.org/draft/2020-12/schema"`, "{\n  \"retentionDays\": 30\n}\n"},
	}
	for _, s := range steps {
		var stdout, stderr bytes.Buffer
		if code := run(strings.Fields(s.args), &stdout, &stderr); code != s.code {
			t.Fatalf("%s: exit %d, want %d\n%s%s", s.args, code, s.code, &stdout, &stderr)
		}
		if !strings.Contains(stdout.String(), s.stdout) {
			t.Errorf("%s: stdout lacks %q:\n%s", s.args, s.stdout, &stdout)
		}
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if string(b) != s.file {
			t.Errorf("%s: config.json is\n%s\nwant\n%s", s.args, b, s.file)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("config.json: %v, mode %v; want 0600", err, fi.Mode())
	}
}

// TestJSONFailuresAreTheEnvelope: with --json, a failing command prints
// the error result (kind, text, the error envelope) on stdout.
func TestJSONFailuresAreTheEnvelope(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	for _, tc := range []struct {
		args string
		code engine.Code
	}{
		{"config --json set retention 3", engine.CodeUnknownKey},
		{"config --json set port 70000", engine.CodeInvalidInput},
		{"doctor --json --salvage /nonexistent/new.db", engine.CodeInvalidInput}, // no database to salvage
	} {
		t.Run(tc.args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(strings.Fields(tc.args), &stdout, &stderr); code != 1 {
				t.Fatalf("exit %d, want 1\n%s%s", code, &stdout, &stderr)
			}
			var got struct {
				Kind  string        `json:"kind"`
				Error *engine.Error `json:"error"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, &stdout)
			}
			if got.Kind != "error" || got.Error == nil || got.Error.Code != tc.code || got.Error.Retry.Kind == "" {
				t.Errorf("got %+v, want kind error with code %s and a retry", got, tc.code)
			}
			if stderr.Len() != 0 {
				t.Errorf("stderr: %s", &stderr)
			}
		})
	}
}
