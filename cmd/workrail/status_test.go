package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/cmd/workrail/daemon"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/store"
)

func TestStatusWithNoDaemon(t *testing.T) {
	home := t.TempDir()
	t.Setenv("WORKRAIL_HOME", home)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"status", "--json"}, &stdout, &stderr); code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, &stdout, &stderr)
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["running"] != false || got["home"] != home {
		t.Errorf("status of no daemon: %v", got)
	}
	stdout.Reset()
	if code := run([]string{"stop"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "No WorkRail daemon is running") {
		t.Errorf("stop with no daemon: exit %d, %s%s", code, &stdout, &stderr)
	}
}

// The status a daemon reports carries every config key.
func TestDaemonReportShape(t *testing.T) {
	r := daemon.Status{Running: true, Home: "/h", Report: &daemon.Report{Config: config.Compare(config.Defaults(), config.Defaults())}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"running":true`, `"appliedConfigHash"`, `"pendingRestart"`, `"sessions"`, `"config":[{"key":"workflowPaths"`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("status JSON lacks %s: %s", k, b)
		}
	}
}

func TestRetentionText(t *testing.T) {
	day := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	stale := func(n int) []store.StaleSession {
		out := make([]store.StaleSession, n)
		for i := range out {
			out[i] = store.StaleSession{Session: engine.SessionID(i + 1), LastActive: day}
		}
		return out
	}
	for _, tc := range []struct {
		plan store.SweepPlan
		want string
	}{
		{store.SweepPlan{RetentionDays: 0}, "sessions are kept forever (retentionDays is 0)"},
		{store.SweepPlan{RetentionDays: 60, Cutoff: day, Stale: stale(0)}, "sessions idle for 60 days are deleted; the next sweep deletes 0"},
		{store.SweepPlan{RetentionDays: 30, Cutoff: day, Stale: stale(2)}, "sessions idle for 30 days are deleted; the next sweep deletes 2: ses_1, ses_2"},
		{store.SweepPlan{RetentionDays: 30, Cutoff: day, Stale: stale(7)},
			"sessions idle for 30 days are deleted; the next sweep deletes 7: ses_1, ses_2, ses_3, ses_4, ses_5, … (2 more)"},
	} {
		if got := retentionText(tc.plan); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}
