package protocol

import (
	"fmt"
	"path/filepath"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/event"
)

// DriftWarning tells the agent of a run whose pinned workflow (version
// pinnedVersion) has drifted from what its id means now that the run
// keeps its pinned version, what changed, and that there is nothing to
// fix. It is shown on a rehydrate only, never recorded, so a replay
// stays byte-identical to the answer it repeats.
func DriftWarning(pinnedVersion string, d catalog.Drift) Warning {
	var what string
	switch d.Kind {
	case catalog.DriftEdited:
		what = fmt.Sprintf("it is now version %s (%s), defined in %s", d.CurrentVersion, ShortHash(d.CurrentHash), placeText(d.Current))
	case catalog.DriftShadowed:
		what = fmt.Sprintf("the pinned version is still defined in %s, but version %s (%s) in %s now takes precedence",
			placeText(d.PinnedAt), d.CurrentVersion, ShortHash(d.CurrentHash), placeText(d.Current))
	case catalog.DriftUnloadable:
		first := "it has problems"
		if len(d.Problems) > 0 {
			first = d.Problems[0].String()
		}
		what = fmt.Sprintf("%s names it but no longer loads (%s)", placeText(d.Current), first)
	default:
		what = "no workflow source defines it any more"
	}
	return Warning{Code: event.NoticePinnedWorkflowDrifted, Message: fmt.Sprintf(
		"this run continues on its pinned version of %s (version %s, %s); the workflow has drifted since (%s): %s. Nothing to fix: keep following the steps WorkRail gives you for this run; only a new start_workflow would use the workflow as it is now.",
		d.WorkflowID, pinnedVersion, ShortHash(d.PinnedHash), d.Kind, what)}
}

// ShortHash is a workflow hash as text shows it: the algorithm and the
// first 12 hex digits.
func ShortHash(h engine.WorkflowHash) string {
	s := h.String()
	if n := len("sha256:") + 12; len(s) > n {
		return s[:n]
	}
	return s
}

// placeText names a workflow definition's file and source for a reader.
func placeText(p catalog.Place) string {
	file := p.File
	if p.Source.Path != "" && !filepath.IsAbs(file) {
		file = filepath.Join(p.Source.Path, file)
	}
	return fmt.Sprintf("%s (%s source)", file, p.Source.Kind)
}
