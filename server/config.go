package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/workrail/workrail/server/home"
)

// Config file settings (config.json in the home folder). Changing them
// requires a daemon restart.
type fileConfig struct {
	// WorkflowPaths are extra folders of workflow files, lowest precedence.
	WorkflowPaths []string `json:"workflowPaths,omitempty"`
}

// workflowDirs lists the folder sources: the user's workflows folder, then
// the config's extra paths.
func workflowDirs(h home.Dir) ([]Source, error) {
	dirs := []Source{{Kind: SourceUser, Path: h.Path("workflows")}}
	b, err := os.ReadFile(h.Path("config.json"))
	if errors.Is(err, os.ErrNotExist) {
		return dirs, nil
	}
	if err != nil {
		return nil, err
	}
	var cfg fileConfig
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("%s: %w (it may hold only \"workflowPaths\": [\"/abs/folder\", …])", h.Path("config.json"), err)
	}
	for _, p := range cfg.WorkflowPaths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%s: workflowPaths entry %q must be an absolute path", h.Path("config.json"), p)
		}
		dirs = append(dirs, Source{Kind: SourceConfig, Path: p})
	}
	return dirs, nil
}
