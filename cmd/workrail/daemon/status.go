package daemon

import (
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/server"
	"github.com/workrail/workrail/server/config"
	"github.com/workrail/workrail/server/home"
	"github.com/workrail/workrail/store"
)

// Status is the daemon's GET /api/status and `workrail status --json`.
// Only a running daemon has the rest: a stopped one is {running, home}.
type Status struct {
	Running bool   `json:"running"`
	Home    string `json:"home"`
	*Report
}

// Report is what a running daemon reports about itself.
type Report struct {
	URL               string        `json:"url"`
	PID               int           `json:"pid"`
	Version           string        `json:"version"`
	StartedAt         string        `json:"startedAt"` // RFC 3339 to the nanosecond: tells a restarted daemon
	UptimeSeconds     int64         `json:"uptimeSeconds"`
	AppliedConfigHash string        `json:"appliedConfigHash"`
	PendingRestart    []string      `json:"pendingRestart"`
	ConfigProblem     *engine.Error `json:"configProblem,omitempty"`
	Sessions          int           `json:"sessions"`
	DBBytes           int64         `json:"dbBytes"`
	// Health counts the sessions verified since the daemon started, by
	// status (the Console's summary: status never reads every log).
	Health map[string]int `json:"health"`
	// Retention is the retention sweep's dry run: what it would delete now.
	Retention store.SweepPlan `json:"retention"`
	// RetentionProblem says why the dry run could not be read ("" when it
	// could).
	RetentionProblem string `json:"retentionProblem,omitempty"`
	// Config is every key of config.json: desired, applied, and its class.
	Config []config.Entry `json:"config"`
	// Goroutines and OpenFiles are the daemon's own counts now: both come
	// back to the same level whenever it is idle, so a rise that stays is
	// a leak (the soak test watches them).
	Goroutines int `json:"goroutines"`
	OpenFiles  int `json:"openFiles"`
}

// daemonStatus is what the running daemon reports about itself.
func daemonStatus(h home.Dir, d *server.Daemon, st *store.Store, snap config.Snapshot) Status {
	info := d.Info()
	r := &Report{URL: info.URL, PID: info.PID, Version: info.Version,
		StartedAt: d.Started().UTC().Format(time.RFC3339Nano), UptimeSeconds: int64(d.Uptime() / time.Second),
		AppliedConfigHash: snap.AppliedHash, ConfigProblem: snap.DesiredErr,
		PendingRestart: append([]string{}, snap.Pending...),
		Health:         map[string]int{}, Config: snap.Entries}
	if ids, err := st.SessionIDs(); err == nil {
		r.Sessions = len(ids)
	}
	if fi, err := os.Stat(h.DB()); err == nil {
		r.DBBytes = fi.Size()
	}
	plan, err := st.SweepPlan(snap.Applied.RetentionDays)
	if err != nil {
		plan = store.SweepPlan{RetentionDays: snap.Applied.RetentionDays, Stale: []store.StaleSession{}}
		r.RetentionProblem = err.Error()
	}
	r.Retention = plan
	for status, n := range st.Checked() {
		r.Health[string(status)] = n
	}
	r.Goroutines = runtime.NumGoroutine()
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		r.OpenFiles = len(fds)
	}
	return Status{Running: true, Home: string(h), Report: r}
}

// adminAPI answers the daemon's status, doctor and restart.
type adminAPI struct {
	h       home.Dir
	st      *store.Store
	live    *config.Live
	running *atomic.Pointer[server.Daemon]
	restart func() *protocol.ErrorResult
}

// Status is the Status.
func (a adminAPI) Status() jsontext.Value {
	return answerOf(daemonStatus(a.h, a.running.Load(), a.st, a.live.Snapshot()))
}

// Doctor is every session's store.Report.
func (a adminAPI) Doctor() (jsontext.Value, error) {
	reports, err := a.st.Doctor()
	if err != nil {
		return nil, err
	}
	return answerOf(reports), nil
}

// Restart asks for a restart unless config.json would stop one.
func (a adminAPI) Restart() *protocol.ErrorResult { return a.restart() }
