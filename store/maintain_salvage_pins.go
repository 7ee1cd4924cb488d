package store

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/store/pagefile"
)

// SalvageOptions say where a salvage may look for what the file lost.
type SalvageOptions struct {
	// Workflows looks for a pinned workflow among the workflow files the
	// daemon would read for a session's workspace ("" for none): the
	// definition of the pin's id, winning or shadowed, that compiles to
	// its hash. Nil looks nowhere. The store checks the hash again.
	Workflows func(workspace string, pin Pin) (compile.Compiled, bool)
}

// Pin is a pinned workflow a run was started on: the id the user knows
// it by and the hash that names its compiled form.
type Pin struct {
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
}

// PinSource is the closed set of places a salvage takes a pinned
// workflow from when the file's tree does not hold it whole.
type PinSource string

const (
	// FromPageScan: another copy in the file, found by the page scan
	// (bbolt is copy-on-write: freed pages hold older versions of the
	// page that held it).
	FromPageScan PinSource = "page_scan"
	// FromWorkflowFiles: a workflow file on disk, compiled again to the
	// same hash.
	FromWorkflowFiles PinSource = "workflow_files"
)

// RestoredPin is a pinned workflow a salvage took from elsewhere than
// the file's tree, and how many of the sessions copied use it.
type RestoredPin struct {
	Pin
	From     PinSource `json:"from"`
	Sessions int       `json:"sessions"`
}

// pinSearch finds the pinned workflows a salvage copies, remembering
// where it took those the tree did not hold and what it looked for in
// vain, so thousands of sessions pinned to one lost workflow cost one
// look at the files.
type pinSearch struct {
	files  func(workspace string, pin Pin) (compile.Compiled, bool)
	from   map[engine.Digest]PinSource
	missed map[missedPin]bool
}

type missedPin struct {
	workspace string
	pin       Pin
}

func newPinSearch(files func(string, Pin) (compile.Compiled, bool)) *pinSearch {
	return &pinSearch{files: files, from: map[engine.Digest]PinSource{}, missed: map[missedPin]bool{}}
}

// find is pin's compiled bytes: from the file's workflows bucket (the
// tree's copy, or one the page scan adopted), else from the workflow
// files the daemon would read for workspace, kept in the bucket for the
// next session. from is "" for the tree's own copy.
func (p *pinSearch) find(workflows *pagefile.Bucket, workspace string, pin Pin) (v []byte, from PinSource, ok bool) {
	d := engine.Digest(pin.WorkflowHash)
	if v, ok := workflows.Entries[string(d[:])]; ok && engine.Sum(v) == d {
		return v, p.from[d], true
	}
	miss := missedPin{workspace, pin}
	if p.files == nil || p.missed[miss] {
		return nil, "", false
	}
	c, ok := p.files(workspace, pin)
	if !ok || engine.Sum(c.Canonical) != d {
		p.missed[miss] = true
		return nil, "", false
	}
	workflows.Entries[string(d[:])] = c.Canonical
	p.from[d] = FromWorkflowFiles
	return c.Canonical, FromWorkflowFiles, true
}

// needsReason says which pinned workflows a session needs that nothing
// holds, short enough for a report line; Lost.Needs has them whole.
func needsReason(needs []Pin) string {
	names := make([]string, len(needs))
	for i, p := range needs {
		h := p.WorkflowHash.String()
		names[i] = fmt.Sprintf("%s (%s…)", p.WorkflowID, h[:min(len(h), len("sha256:")+12)])
	}
	what := "the workflow its run is pinned to, " + names[0] + ", is"
	if len(names) > 1 {
		what = "the workflows its runs are pinned to, " + strings.Join(names, ", ") + ", are"
	}
	return what + " in neither the file nor the workflow files on disk"
}
