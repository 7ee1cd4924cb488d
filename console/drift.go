package console

import (
	"path/filepath"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/execute"
)

// drift compares a run's pin with what its id means now in the catalog of
// the workspace its session started in; nil when it means the same.
func (c *Console) drift(workspace string, id engine.WorkflowID, pinned engine.WorkflowHash) *catalog.Drift {
	if d, ok := execute.Drift(c.workflows, workspace, id, pinned); ok {
		return &d
	}
	return nil
}

// driftText says what changed since a run pinned its workflow, for the
// run page's banner. The run itself is never affected.
func driftText(d catalog.Drift) string {
	switch d.Kind {
	case catalog.DriftEdited:
		return string(d.WorkflowID) + " was changed since this run started: a new start gets version " +
			d.CurrentVersion + " (" + shortHash(d.CurrentHash.String()) + ") from " + placeText(d.Current) + "."
	case catalog.DriftShadowed:
		return string(d.WorkflowID) + " now comes from " + placeText(d.Current) + " (version " + d.CurrentVersion + ", " +
			shortHash(d.CurrentHash.String()) + "), which shadows the pinned version still defined in " + placeText(d.PinnedAt) + "."
	case catalog.DriftUnloadable:
		text := string(d.WorkflowID) + " no longer loads from " + placeText(d.Current)
		if len(d.Problems) > 0 {
			text += ": " + d.Problems[0].String()
		}
		return text + "."
	}
	return string(d.WorkflowID) + " is no longer defined by any workflow source."
}

func placeText(p catalog.Place) string {
	if p.File == "" {
		return string(p.Source.Kind) + " workflows"
	}
	if p.Source.Path != "" && !filepath.IsAbs(p.File) {
		return filepath.Join(p.Source.Path, p.File)
	}
	return p.File
}

func driftCount(n int) string {
	if n == 1 {
		return "1 run on an older version"
	}
	return strconv.Itoa(n) + " runs on older versions"
}
