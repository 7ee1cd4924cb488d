package home

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
)

// Config is config.json in the home folder. Changing it requires a
// daemon restart.
type Config struct {
	// WorkflowPaths are extra folders of workflow files, lowest precedence.
	WorkflowPaths []string `json:"workflowPaths,omitempty"`
	// DefaultPreferences are the global defaults new sessions copy.
	DefaultPreferences workflow.Preferences `json:"defaultPreferences"`
}

// Config reads config.json (absent means defaults).
func (h Dir) Config() (Config, error) {
	var cfg Config
	path := h.Path("config.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return cfg, fmt.Errorf("%s: %w (it may hold \"workflowPaths\": [\"/abs/folder\"] and \"defaultPreferences\": {\"autonomy\": …, \"riskPolicy\": …})", path, err)
	}
	if e := outcome.CheckPreferences(cfg.DefaultPreferences, "defaultPreferences"); e != nil {
		return cfg, fmt.Errorf("%s: %s", path, e.Message)
	}
	for _, p := range cfg.WorkflowPaths {
		if !filepath.IsAbs(p) {
			return cfg, fmt.Errorf("%s: workflowPaths entry %q must be an absolute path", path, p)
		}
	}
	return cfg, nil
}

// WorkflowDirs lists the folder sources: the user's workflows folder, then
// the config's extra paths.
func (h Dir) WorkflowDirs(cfg Config) []catalog.Source {
	dirs := []catalog.Source{{Kind: catalog.User, Path: h.Path("workflows")}}
	for _, p := range cfg.WorkflowPaths {
		dirs = append(dirs, catalog.Source{Kind: catalog.Config, Path: p})
	}
	return dirs
}

// AuthToken is the bearer token HTTP MCP clients send, created on first
// use in auth.token (0600). An existing token is used only if it is
// private to this user: one others could read or plant is refused.
func (h Dir) AuthToken() (string, error) {
	path := h.Path("auth.token")
	if f, err := os.Open(path); err == nil {
		defer f.Close()
		if err := checkPrivate(f, path); err != nil {
			return "", err
		}
		b, err := io.ReadAll(io.LimitReader(f, 4096))
		if err != nil {
			return "", fmt.Errorf("home: read %s: %w", path, err)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	t := hex.EncodeToString(buf)
	return t, WriteFileAtomic(path, []byte(t+"\n"), 0o600)
}
