package server

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/workrail/workrail/server/home"
)

// Action is the closed set of things the daemon can be asked to do to
// itself.
type Action string

// The actions.
const (
	// ActionStop shuts the daemon down, as SIGTERM does.
	ActionStop Action = "stop"
	// ActionRestart shuts it down and starts it again in the same process,
	// reading config.json afresh.
	ActionRestart Action = "restart"
	// ActionRetire shuts it down for a shim of a newer version, which then
	// starts its own (POST /retire).
	ActionRetire Action = "retire"
)

// Control delivers the actions asked of the daemon; the caller (the
// command running it) carries them out.
func (d *Daemon) Control() <-chan Action { return d.control }

// Request asks the daemon to stop or restart once the current requests
// are answered. A request while one is pending is dropped: the first one
// wins.
func (d *Daemon) Request(a Action) {
	select {
	case d.control <- a:
	default:
	}
}

// SetAppliedConfigHash records a configuration change applied live in
// daemon.json.
func (d *Daemon) SetAppliedConfigHash(hash string) error {
	d.infoMu.Lock()
	defer d.infoMu.Unlock()
	d.info.AppliedConfigHash = hash
	return d.cfg.Home.WriteInfo(d.info)
}

// Info is what daemon.json says about this daemon.
func (d *Daemon) Info() home.Info {
	d.infoMu.Lock()
	defer d.infoMu.Unlock()
	return d.info
}

// status answers GET /api/status with what the wiring reports.
func (d *Daemon) status(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, d.cfg.API.Admin.Status())
}

// stop answers POST /api/stop (socket only): `workrail stop`.
func (d *Daemon) stop(w http.ResponseWriter, _ *http.Request) {
	d.cfg.Log.Info("stopping: asked on the socket")
	w.WriteHeader(http.StatusAccepted)
	d.Request(ActionStop)
}

// restart answers POST /api/restart (socket only): `workrail restart`.
// The wiring refuses when the daemon could not start again (config.json
// has a problem); the answer is then the error result.
func (d *Daemon) restart(w http.ResponseWriter, _ *http.Request) {
	if refused := d.cfg.API.Admin.Restart(); refused != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		json.NewEncoder(w).Encode(refused)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// Port is the TCP port the Console and HTTP MCP endpoint listen on.
func (d *Daemon) Port() int {
	u, err := url.Parse(d.url)
	if err != nil {
		return 0
	}
	p, _ := strconv.Atoi(u.Port())
	return p
}

// Started is when the daemon started serving.
func (d *Daemon) Started() time.Time { return d.started }

// Uptime is how long the daemon has served, for status reports.
func (d *Daemon) Uptime() time.Duration { return d.cfg.Now().Sub(d.started) }
