package bundle

import "github.com/workrail/workrail/engine"

// ImportReport is what an import did, or on a dry run what it would do.
type ImportReport struct {
	DryRun bool `json:"dryRun"`
	// Session is the new session's id; zero on a dry run.
	Session engine.SessionID `json:"sessionId,omitzero"`
	// Source is the session id the bundle was exported from, and
	// SourceChainHead the digest of its last event.
	Source          engine.SessionID `json:"sourceSessionId"`
	SourceChainHead engine.Digest    `json:"sourceChainHead"`
	Title           string           `json:"title,omitempty"`
	Redacted        bool             `json:"redacted"`
	Redaction       Redaction        `json:"redaction"`
	Events          int              `json:"events"`
	Runs            int              `json:"runs"`
	Nodes           int              `json:"nodes"`
	// SnapshotsAdded and WorkflowsAdded count what the store did not hold
	// yet; SnapshotsPresent and WorkflowsPresent what it already held.
	SnapshotsAdded   int      `json:"snapshotsAdded"`
	SnapshotsPresent int      `json:"snapshotsPresent"`
	WorkflowsAdded   int      `json:"workflowsAdded"`
	WorkflowsPresent int      `json:"workflowsPresent"`
	Warnings         []string `json:"warnings,omitempty"`
	// Workflows names the workflow of each run, in run order, so a
	// person sees what the session did before importing it.
	Workflows []RunWorkflow `json:"workflows,omitempty"`
}

// RunWorkflow is the workflow one run of a bundle is pinned to.
type RunWorkflow struct {
	Run     engine.RunID      `json:"runId"`
	ID      engine.WorkflowID `json:"workflowId"`
	Name    string            `json:"name"`
	Version string            `json:"version"`
}

// Report is what importing v adds: its session, events, runs and nodes.
// The caller fills in which references the store already holds.
func (v *Verified) Report(dryRun bool) ImportReport {
	b := v.Bundle
	nodes := 0
	for _, r := range b.Runs {
		nodes += len(r.Nodes)
	}
	rep := ImportReport{DryRun: dryRun, Source: b.Session.ID, SourceChainHead: b.Manifest.ChainHead, Title: b.Session.Title,
		Redacted: b.Session.Redacted, Redaction: b.Session.Level(), Events: len(v.Events), Runs: len(b.Runs), Nodes: nodes}
	for _, r := range b.Runs {
		wf := v.Workflows[r.WorkflowHash] // verified: every pin is in the bundle
		rep.Workflows = append(rep.Workflows, RunWorkflow{Run: r.ID, ID: r.WorkflowID, Name: wf.Name, Version: wf.Version})
	}
	switch rep.Redaction {
	case RedactNotes:
		rep.Warnings = append(rep.Warnings, "the bundle's notes are redacted: every note reads "+RedactedMarker+", and so will the imported session's")
	case RedactAll:
		rep.Warnings = append(rep.Warnings, "the bundle is redacted: every note, artifact, gap text and context value reads "+RedactedMarker+
			" (or 0), its observations too, and its workspace is left out, and so will the imported session's; a run continued from it reads the masked context")
	}
	return rep
}

// References lists the snapshots and pinned workflows the bundle holds,
// each in address order.
func (v *Verified) References() ([]engine.SnapshotRef, []engine.WorkflowHash) {
	return sortedKeys(v.Snapshots), sortedKeys(v.Workflows)
}
