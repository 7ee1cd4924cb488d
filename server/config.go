package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/workflow"
	"os"
	"path/filepath"

	"github.com/workrail/workrail/server/home"
)

// fileConfig is config.json in the home folder. Changing it requires a
// daemon restart.
type fileConfig struct {
	// WorkflowPaths are extra folders of workflow files, lowest precedence.
	WorkflowPaths []string `json:"workflowPaths,omitempty"`
	// DefaultPreferences are the global defaults new sessions copy.
	DefaultPreferences workflow.Preferences `json:"defaultPreferences"`
}

// loadConfig reads config.json (absent means defaults).
func loadConfig(h home.Dir) (fileConfig, error) {
	var cfg fileConfig
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

// workflowDirs lists the folder sources: the user's workflows folder, then
// the config's extra paths.
func (cfg fileConfig) workflowDirs(h home.Dir) []Source {
	dirs := []Source{{Kind: SourceUser, Path: h.Path("workflows")}}
	for _, p := range cfg.WorkflowPaths {
		dirs = append(dirs, Source{Kind: SourceConfig, Path: p})
	}
	return dirs
}
