package e2e

import (
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
)

// A daemon started with --port 0 reports the port it listens on as the
// applied one, in `workrail status --json` and in daemon.json's hash, and
// no restart pending for it: a restart keeps the port.
func TestStatusPortIsThePortInUse(t *testing.T) {
	home := newHome(t)
	d := startDaemon(t, home)
	u, err := url.Parse(d.info.URL)
	if err != nil {
		t.Fatal(err)
	}
	out, code := cli(t, home, "status", "--json")
	if code != 0 {
		t.Fatalf("status exit %d:\n%s", code, out)
	}
	var s struct {
		AppliedConfigHash string   `json:"appliedConfigHash"`
		PendingRestart    []string `json:"pendingRestart"`
		Config            []struct {
			Key     string `json:"key"`
			Applied string `json:"applied"`
			Desired string `json:"desired"`
		} `json:"config"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	applied := ""
	for _, e := range s.Config {
		if e.Key == "port" {
			applied = e.Applied
		}
	}
	if applied != u.Port() || applied == strconv.Itoa(7421) {
		t.Errorf("status says the applied port is %q; the daemon listens on %s", applied, u.Port())
	}
	if len(s.PendingRestart) != 0 {
		t.Errorf("pending restart %v for a port the command line chose", s.PendingRestart)
	}
	if s.AppliedConfigHash != appliedHash(t, home) {
		t.Errorf("status hash %s, daemon.json %s", s.AppliedConfigHash, appliedHash(t, home))
	}
}
