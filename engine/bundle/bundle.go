// Package bundle is WorkRail's portable session format: one session's
// event log with everything it references (node snapshots, pinned
// compiled workflows), readable parts derived from the log (runs with
// their DAG, outputs, gaps, preferences, observations), and a manifest of
// digests. It builds bundles, encodes them deterministically (RFC 8785),
// and decodes and verifies them. It does no I/O.
//
// The log is the bundle's truth: the readable parts are what a fold of
// the events gives, and verification refolds the events and refuses a
// bundle whose parts say anything else, so a bundle cannot say two
// things.
package bundle

import (
	"encoding/json"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
)

// Format names the document kind; a bundle says it in its "format" key.
const Format = "workrail.session-bundle"

// SchemaVersion is the version of the bundle format this package writes.
// A change to any part's shape or meaning is a new version. Version 2
// added session.redaction; Read reads versions 1 and 2.
const SchemaVersion = 2

// RedactedMarker replaces every masked text of a redacted bundle: every
// note body (RedactNotes), or every free-form text (RedactAll).
const RedactedMarker = "[redacted]"

// Bundle is the whole document. Its JSON is its format: the field tags
// and bundle.schema.json are held together by tests.
type Bundle struct {
	Format       string        `json:"format"`
	Version      int           `json:"bundleSchemaVersion"`
	Session      Session       `json:"session"`
	Observations []Observation `json:"observations"`
	Runs         []Run         `json:"runs"`
	Outputs      []Output      `json:"outputs"`
	Gaps         []Gap         `json:"gaps"`
	Preferences  []Preference  `json:"preferences"`
	// Events are the session's log, each exactly as the store keeps it.
	Events []json.RawMessage `json:"events"`
	// Snapshots and Workflows are content-addressed: each key is the
	// sha256 of its value's canonical JSON.
	Snapshots map[engine.SnapshotRef]json.RawMessage  `json:"snapshots"`
	Workflows map[engine.WorkflowHash]json.RawMessage `json:"workflows"`
	Manifest  Manifest                                `json:"manifest"`
}

// Session is what the bundle says of its session as a whole.
type Session struct {
	ID            engine.SessionID `json:"sessionId"`
	CreatedAt     string           `json:"createdAt"`
	WorkspacePath string           `json:"workspacePath,omitempty"`
	Title         string           `json:"title,omitempty"`
	// Redacted says every note body reads RedactedMarker: Redaction is
	// RedactNotes or RedactAll.
	Redacted bool `json:"redacted"`
	// Redaction is what the export left out. Version 2 always writes it;
	// a version 1 bundle has none (see Level).
	Redaction Redaction `json:"redaction,omitempty"`
	// ImportedFrom is set when the session was itself made by an import:
	// the session and chain head of the bundle it came from.
	ImportedFrom *event.ImportSource `json:"importedFrom,omitempty"`
}

// Level is what the bundle's export left out; a version 1 bundle, which
// predates Redaction, redacted notes or nothing.
func (s Session) Level() Redaction {
	switch {
	case s.Redaction != "":
		return s.Redaction
	case s.Redacted:
		return RedactNotes
	}
	return RedactNone
}

// Observation is one observation_recorded event (git branch, HEAD, repo).
type Observation struct {
	EventID engine.EventID       `json:"eventId"`
	Key     event.ObservationKey `json:"key"`
	Value   string               `json:"value"`
}

// Run is one run with its DAG and its state at its preferred tip.
type Run struct {
	ID           engine.RunID        `json:"runId"`
	WorkflowID   engine.WorkflowID   `json:"workflowId"`
	WorkflowHash engine.WorkflowHash `json:"workflowHash"`
	RestartOf    engine.RunID        `json:"restartOf,omitzero"`
	// Repo is the repository and commit the workflow was read from, when
	// a repository defined it.
	Repo         event.RepoPin     `json:"repo,omitzero"`
	StartedBy    engine.EventID    `json:"startedBy"`
	Root         engine.NodeID     `json:"rootNodeId"`
	PreferredTip engine.NodeID     `json:"preferredTipNodeId"`
	Status       project.RunStatus `json:"status"`
	Pending      workflow.StepID   `json:"pendingStepId,omitempty"`
	IsComplete   bool              `json:"isComplete"`
	Nodes        []Node            `json:"nodes"`
	Edges        []Edge            `json:"edges"`
}

// Node is one node of a run's DAG.
type Node struct {
	ID        engine.NodeID      `json:"nodeId"`
	Kind      event.NodeKind     `json:"nodeKind"`
	Parent    engine.NodeID      `json:"parentNodeId,omitzero"`
	Snapshot  engine.SnapshotRef `json:"snapshotRef"`
	CreatedBy engine.EventID     `json:"createdBy"`
	// StepID is the step pending at the node; empty when it is complete.
	StepID   workflow.StepID `json:"stepId,omitempty"`
	Attempts engine.Attempt  `json:"attempts"`
}

// Edge is one edge of a run's DAG.
type Edge struct {
	Kind      event.EdgeKind `json:"edgeKind"`
	From      engine.NodeID  `json:"fromNodeId"`
	To        engine.NodeID  `json:"toNodeId"`
	CreatedBy engine.EventID `json:"createdBy"`
}

// Output is one durable output (notes, artifacts), named by its event id,
// with its supersedes linkage both ways.
type Output struct {
	ID            engine.EventID    `json:"outputId"`
	Run           engine.RunID      `json:"runId"`
	Node          engine.NodeID     `json:"nodeId"`
	StepID        workflow.StepID   `json:"stepId"`
	NotesMarkdown string            `json:"notesMarkdown,omitempty"`
	Artifacts     []json.RawMessage `json:"artifacts,omitempty"`
	Supersedes    engine.EventID    `json:"supersedesOutputId,omitempty"`
	SupersededBy  []engine.EventID  `json:"supersededBy,omitempty"`
}

// Gap is one gap and the later records that resolved it.
type Gap = project.GapState

// Preference is one preferences_changed event: the delta asked for and
// the effective preferences from its node on.
type Preference struct {
	EventID   engine.EventID       `json:"eventId"`
	Run       engine.RunID         `json:"runId"`
	Node      engine.NodeID        `json:"nodeId"`
	Delta     workflow.Preferences `json:"delta"`
	Effective workflow.Preferences `json:"effective"`
}

// Manifest holds the sha256 of every part's canonical JSON, and the
// digest chain's head over the events.
type Manifest struct {
	EventCount int           `json:"eventCount"`
	ChainHead  engine.Digest `json:"chainHead"`
	Parts      Parts         `json:"parts"`
}

// Parts is one digest per part of the bundle, named as the part.
type Parts struct {
	Session      engine.Digest `json:"session"`
	Observations engine.Digest `json:"observations"`
	Runs         engine.Digest `json:"runs"`
	Outputs      engine.Digest `json:"outputs"`
	Gaps         engine.Digest `json:"gaps"`
	Preferences  engine.Digest `json:"preferences"`
	Events       engine.Digest `json:"events"`
	Snapshots    engine.Digest `json:"snapshots"`
	Workflows    engine.Digest `json:"workflows"`
}

// part is one entry of the manifest: its name, the digest the manifest
// holds, and the value it digests.
type part struct {
	name  string
	entry *engine.Digest
	value any
}

// seal sets every manifest digest to its part's.
func (b *Bundle) seal() error {
	for _, p := range b.parts() {
		d, err := digestOf(p.value)
		if err != nil {
			return err
		}
		*p.entry = d
	}
	return nil
}

// parts lists b's parts in manifest order.
func (b *Bundle) parts() []part {
	p := &b.Manifest.Parts
	return []part{
		{"session", &p.Session, b.Session},
		{"observations", &p.Observations, b.Observations},
		{"runs", &p.Runs, b.Runs},
		{"outputs", &p.Outputs, b.Outputs},
		{"gaps", &p.Gaps, b.Gaps},
		{"preferences", &p.Preferences, b.Preferences},
		{"events", &p.Events, b.Events},
		{"snapshots", &p.Snapshots, b.Snapshots},
		{"workflows", &p.Workflows, b.Workflows},
	}
}
