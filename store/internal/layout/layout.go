// Package layout names the buckets and keys of the store's bbolt file.
// They are spelled here once, so that the store and the test support
// that damages or reads a file on purpose (store/storetest) agree, and
// nothing outside store spells them.
package layout

// Top-level buckets.
var (
	Meta      = []byte("meta")      // Schema → the file's schema version
	Sessions  = []byte("sessions")  // session key → the session's bucket; its sequence hands out ids
	Snapshots = []byte("snapshots") // digest → snapshot
	Workflows = []byte("workflows") // digest → pinned workflow
	// Activity: session key → wall time of its last write (Unix seconds),
	// for retention.
	Activity = []byte("activity")
	// Unreferenced: kind ‖ digest → the deleted session that referenced it.
	Unreferenced = []byte("unreferenced")
	Recent       = []byte("recent")   // write sequence → session key
	Written      = []byte("written")  // session key → its write sequence
	Replaced     = []byte("replaced") // deleted session key → the session that took its place
	Starts       = []byte("starts")   // start key → sequence ‖ session ‖ run
)

// Schema is the meta bucket's key for the schema version (big-endian u64).
var Schema = []byte("schema")

// Inside each session's bucket.
var (
	Events   = []byte("events")   // EventIndex → JCS event
	Chain    = []byte("chain")    // EventIndex → chain digest
	Nodes    = []byte("nodes")    // NodeID → NodeInfo (derived)
	Runs     = []byte("runs")     // RunID → RunInfo (derived)
	Attempts = []byte("attempts") // NodeID‖Attempt → EventIndex (derived)
	Head     = []byte("head")     // last EventIndex ‖ last digest
	Overview = []byte("overview") // project.Overview as JSON (derived)
	Resume   = []byte("resume")   // resume.Record as JSON (derived)
	Derived  = []byte("derived")  // the definition versions of the derived records
	Lineage  = []byte("lineage")  // RunID ‖ NodeID → project.Part, RunID ‖ 0 → project.RunHead (derived)
)
