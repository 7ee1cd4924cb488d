package console

import (
	"net/http"
	"strconv"
	"strings"
)

// Settings is the daemon's configuration as the Console shows and obeys
// it: desired (config.json now) against applied (in effect), key by key.
type Settings struct {
	Path        string // config.json
	AppliedHash string // appliedConfigHash, sha256:<hex>
	// Problem says why config.json cannot be used as it is now ("" when it
	// can): the daemon keeps what it applied, and a restart would fail.
	Problem string
	Entries []SettingEntry
	// Pending lists the restart-required keys a restart would change.
	Pending []string
	// Generation moves whenever config.json's content changes.
	Generation uint64
	// Presentation, applied live.
	PageSize, PollSeconds int
}

// SettingEntry is one key's row.
type SettingEntry struct {
	Key, Why         string
	Desired, Applied string // JSON text
	RestartRequired  bool   // else runtime-safe
	Differs          bool
}

// defaultSettings are what a Console built without a configuration uses.
func defaultSettings() Settings { return Settings{PageSize: 50, PollSeconds: 2} }

func (c *Console) settings() Settings {
	if c.config == nil {
		return defaultSettings()
	}
	return c.config()
}

// configPage shows desired vs applied.
func (c *Console) configPage(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, configView(c.chrome("Configuration"), c.settings(), ""))
}

// configBanner is the restart banner alone, which every page fetches
// again when something changed.
func (c *Console) configBanner(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusOK, restartBanner(c.chrome("")))
}

// configRestart restarts the daemon in place, once the reader confirmed
// with the page's form (CSRF-checked like every post). It answers before
// the daemon goes away; the answer reloads the config page a moment later.
func (c *Console) configRestart(w http.ResponseWriter, r *http.Request) {
	if c.restart == nil {
		c.render(w, r, http.StatusConflict, configView(c.chrome("Configuration"), c.settings(), "This Console cannot restart its daemon."))
		return
	}
	m := c.chrome("Configuration")
	if m.Relogin = c.stale(r); m.Relogin > 0 {
		c.render(w, r, reloginStatus, configView(m, c.settings(), ""))
		return
	}
	if err := c.restart(); err != nil {
		c.render(w, r, http.StatusConflict, configView(c.chrome("Configuration"), c.settings(), err.Error()))
		return
	}
	c.render(w, r, http.StatusAccepted, restartingPage(c.chrome("Restarting")))
}

// pollEvery is the poller's htmx trigger interval.
func pollEvery(seconds int) string { return "every " + strconv.Itoa(seconds) + "s, wr-wake from:body" }

// keyList names keys for a sentence: a, b and c.
func keyList(keys []string) string {
	switch len(keys) {
	case 0:
		return ""
	case 1:
		return keys[0]
	}
	return strings.Join(keys[:len(keys)-1], ", ") + " and " + keys[len(keys)-1]
}
