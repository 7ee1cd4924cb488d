package catalog

import (
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// DriftKind is the closed set of ways the workflow a run is pinned to can
// differ from what its id means in the catalog now.
type DriftKind string

// Drift kinds.
const (
	// DriftEdited: the id resolves to a definition that compiles to
	// another workflow, and no source defines the pinned version any more
	// (its file was edited, or replaced by another source's definition).
	DriftEdited DriftKind = "edited"
	// DriftShadowed: the pinned version is still defined by some source,
	// but a definition of higher precedence, compiling to another
	// workflow, now wins the id.
	DriftShadowed DriftKind = "shadowed"
	// DriftRemoved: no source defines the id, and no file that fails to
	// load names it.
	DriftRemoved DriftKind = "removed"
	// DriftUnloadable: no source defines the id, but a file naming it
	// fails to load (bad JSON, a broken rule, a namespace it may not use,
	// a failed compile): most often a file being edited.
	DriftUnloadable DriftKind = "unloadable"
)

// DriftKinds lists every drift kind in a fixed order.
func DriftKinds() []DriftKind {
	return []DriftKind{DriftEdited, DriftShadowed, DriftRemoved, DriftUnloadable}
}

// Place is where one definition of a workflow lives: its source and file.
type Place struct {
	Source Source `json:"source"`
	File   string `json:"file"`
}

// Drift is how the workflow a run is pinned to differs from what its id
// resolves to now. Which fields are set depends on Kind:
//
//	edited      CurrentHash, CurrentVersion, Current (the winning definition)
//	shadowed    the same, plus PinnedAt (where the pinned version still is)
//	unloadable  Current (the file that fails; of several, the one of
//	            highest precedence) and its Problems
//	removed     nothing beyond Kind, WorkflowID and PinnedHash
//
// The run itself is never affected: it continues on its pinned version.
// Drift only explains why a new start of the id would run something else.
type Drift struct {
	Kind           DriftKind           `json:"kind"`
	WorkflowID     engine.WorkflowID   `json:"workflowId"`
	PinnedHash     engine.WorkflowHash `json:"pinnedHash"`
	CurrentHash    engine.WorkflowHash `json:"currentHash,omitzero"`
	CurrentVersion string              `json:"currentVersion,omitempty"`
	Current        Place               `json:"current,omitzero"`
	PinnedAt       Place               `json:"pinnedAt,omitzero"`
	Problems       workflow.Problems   `json:"problems,omitempty"`
}

// Drift compares a run's pin (its workflow id and hash) with this
// catalog, the one the run's workspace sees now. ok is false when there
// is no drift: the id resolves to a definition compiling to the pinned
// hash, whichever source it comes from. Otherwise, in this order:
//
//   - the id resolves, and a definition it shadows compiles to the pinned
//     hash: shadowed;
//   - the id resolves: edited;
//   - a load problem names the id (LoadProblem.ID): unloadable;
//   - otherwise: removed.
//
// A run records only the id and hash it pinned, not the source it was
// loaded from, so the kind is read from what the sources hold now: a
// pinned file deleted while another source's different definition of the
// same id takes over reads as edited (the pinned version is gone and the
// id means something else), not shadowed. A broken file only matters
// when nothing else defines the id: while a definition loads, drift
// describes that definition, the one start_workflow would pin.
func (c *Catalog) Drift(id engine.WorkflowID, pinned engine.WorkflowHash) (Drift, bool) {
	d := Drift{WorkflowID: id, PinnedHash: pinned}
	if w, ok := c.Get(id); ok {
		if w.Compiled.Hash == pinned {
			return Drift{}, false
		}
		d.Kind, d.CurrentHash, d.CurrentVersion = DriftEdited, w.Compiled.Hash, w.Compiled.Version
		d.Current = Place{Source: w.Source, File: w.File}
		losers := c.losers[id]
		if i := first(len(losers), func(i int) (SourceKind, bool) {
			return losers[i].Source.Kind, losers[i].Compiled.Hash == pinned
		}); i >= 0 {
			d.Kind, d.PinnedAt = DriftShadowed, Place{Source: losers[i].Source, File: losers[i].File}
		}
		return d, true
	}
	if i := first(len(c.Problems), func(i int) (SourceKind, bool) {
		return c.Problems[i].Source.Kind, c.Problems[i].ID == id
	}); i >= 0 {
		p := c.Problems[i]
		d.Kind, d.Current, d.Problems = DriftUnloadable, Place{Source: p.Source, File: p.File}, p.Problems
		return d, true
	}
	d.Kind = DriftRemoved
	return d, true
}

// first is the index of the matching item of highest source precedence
// (of two of the same precedence, the earlier), or -1 for none.
func first(n int, match func(int) (SourceKind, bool)) int {
	out := -1
	var kind SourceKind
	for i := range n {
		if k, ok := match(i); ok && (out < 0 || precedence(k) < precedence(kind)) {
			out, kind = i, k
		}
	}
	return out
}
