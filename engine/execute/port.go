package execute

import (
	"fmt"
	"iter"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/run"
)

// Store is the port the use cases run against: sessions of append-only
// events with their derived indexes, node snapshots and pinned workflows.
// The bbolt store implements it; so does memstore, for tests. Lookups of
// records that do not exist return errors wrapping engine.ErrNotFound.
type Store interface {
	// Create starts a new session and runs fn in the transaction that
	// creates it.
	Create(fn func(Tx) error) (engine.SessionID, error)
	// View runs fn in a read transaction on session id. fn gets a ReadTx:
	// a read path has no way to append.
	View(id engine.SessionID, fn func(ReadTx) error) error
	// Update runs fn in a write transaction on session id; an error from
	// fn rolls back everything it appended. fn may run more than once.
	Update(id engine.SessionID, fn func(Tx) error) error
	// Health is the verified state of session id's log and indexes.
	Health(id engine.SessionID) (Health, error)
	// Resume ranks every session for q (resume.Rank) from the resume
	// index, without reading a log; it does not look at health.
	Resume(q resume.Query) (iter.Seq[resume.Match], error)
	// Replace makes a new session and deletes session id in one write:
	// fn reads id as that write sees it (old) and writes the new session
	// (tx), so no write to id comes between what fn read and the
	// deletion, and there is no moment with both sessions or neither.
	// An error from fn writes nothing. From then on a lookup of id fails
	// with a *ReplacedError naming the new session. It is how a scrub
	// replaces a session by its redacted copy.
	Replace(id engine.SessionID, fn func(old ReadTx, tx Tx) error) (engine.SessionID, error)
	// Holds counts how many of the given node snapshots and pinned
	// workflows the store already keeps, without writing.
	Holds(snapshots []engine.SnapshotRef, workflows []engine.WorkflowHash) (snapshotsHeld, workflowsHeld int, err error)
}

// ReplacedError is the failure of a lookup of a session that Replace
// replaced. By is the session that took its place (the last of a chain,
// when that one was replaced too). It wraps engine.ErrNotFound.
type ReplacedError struct {
	Session, By engine.SessionID
}

func (e *ReplacedError) Error() string {
	return fmt.Sprintf("session %s was replaced by %s", e.Session, e.By)
}

// Unwrap makes a replaced session one that is not found.
func (e *ReplacedError) Unwrap() error { return engine.ErrNotFound }

// ReadTx is what a read transaction may read, scoped to one session. It
// has no method that writes: read paths (rehydrate, inspect, the
// Console's pages, resources) are handed one by Store.View, so that they
// write nothing is a matter of type, not of convention.
type ReadTx interface {
	project.Reader
	Session() engine.SessionID
	// Head is the index of the session's last event.
	Head() engine.EventIndex
	Run(engine.RunID) (project.Run, error)
	// Runs lists the session's runs in the order they started.
	Runs() ([]project.Run, error)
	// RecordedAttempt is the advance_recorded event of attempt a at node.
	RecordedAttempt(node engine.NodeID, a engine.Attempt) (event.Event, error)
	// Workflow reads a pinned workflow, verifying its hash.
	Workflow(engine.WorkflowHash) (compile.Compiled, error)
	// WorkflowOutline reads a pinned workflow's outline, verifying its
	// hash: its ids, titles and loops (compile.RestoreOutline), what
	// pages listing a run's rows read of a pin.
	WorkflowOutline(engine.WorkflowHash) (compile.Compiled, error)
	// Part reads the projection's record of a node of a run.
	Part(engine.RunID, engine.NodeID) (project.Part, error)
}

// ReadOnly is tx with nothing but its reads: what an implementation's
// View hands fn, so that not even a type assertion reaches the writing
// methods of the transaction type behind it.
func ReadOnly(tx ReadTx) ReadTx { return readOnly{tx} }

type readOnly struct{ ReadTx }

// Tx is what a write transaction may read and append, scoped to one
// session: everything ReadTx reads, and the writes.
type Tx interface {
	ReadTx

	// Append adds one event scoped to run and node (zero for none) and
	// folds it into the derived indexes.
	Append(engine.RunID, engine.NodeID, event.Payload) (event.Event, error)
	// Stamp sets what the events this transaction appends from now on
	// record of the write: when it was made (the use case's clock) and
	// by whom. Unset, they record neither.
	Stamp(event.Stamp)
	NewRunID() (engine.RunID, error)
	NewNodeID() (engine.NodeID, error)
	PutSnapshot(run.Snapshot) (engine.SnapshotRef, error)
	PinWorkflow(compile.Compiled) error
	// StartedBy is the run a start under key made, in any session, if
	// the store still holds its record: it keeps the records of at least
	// its last StartsKept starts, and none of a deleted session.
	StartedBy(key StartKey) (Started, bool, error)
	// RecordStart records that the start under key made run r.
	RecordStart(key StartKey, r Started) error
}

// StartKey names one start a client made: the digest of the retry key
// its shim sent (protocol.RetryKey) and of the arguments sent with it, so
// the same call sent again, and only that, finds the run it made.
type StartKey engine.Digest

// Started is the run a start made.
type Started struct {
	Session engine.SessionID
	Run     engine.RunID
}

// StartsKept is how many of the latest starts a store keeps the keys of
// at least: a shim sends a call again within seconds of the daemon going
// away, so only the latest starts can be sent again.
const StartsKept = 1024

// Write is a session's place in its store's write sequence (engine.Write),
// named here too because the stores' Recent walks by it.
type Write = engine.Write

// HealthStatus is the closed set of states a session's log can be in.
type HealthStatus string

// Health states.
const (
	Healthy HealthStatus = "healthy"
	// CorruptTail: the log fails verification from FirstBad on; events up
	// to LastGood can still be read.
	CorruptTail HealthStatus = "corrupt_tail"
	// IndexesDamaged: the log verifies but the indexes derived from it do
	// not match a refold of it, and the store could not rebuild them (a
	// read-only store, or a snapshot or pin the log references is
	// damaged); a store that can rebuilds them and reports Healthy.
	// Nothing is lost; `workrail doctor --rebuild-indexes` refolds them.
	IndexesDamaged HealthStatus = "indexes_damaged"
	// Unreadable: the database file is damaged where the session's records
	// live, so they cannot be read at all. `workrail doctor --salvage`
	// copies every intact session into a new file.
	Unreadable HealthStatus = "unreadable"
)

// HealthStatuses lists every health state, the healthy one first.
func HealthStatuses() []HealthStatus {
	return []HealthStatus{Healthy, CorruptTail, IndexesDamaged, Unreadable}
}

// Health is the verified state of one session. Execution runs only on a
// healthy session; read-only views work up to LastGood.
type Health struct {
	Status   HealthStatus      `json:"status"`
	FirstBad engine.EventIndex `json:"firstBadIndex,omitzero"`
	LastGood engine.EventIndex `json:"lastGoodIndex"`
	Reason   string            `json:"reason,omitempty"`
}
