package bundle

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
)

// Unsealed folds a session its store has just verified (a healthy one):
// its events with the snapshots and pinned workflows they name, into what
// Markdown and RunMarkdown read, as Read would give it back from the
// session's bundle without redaction, but with no bundle encoded,
// digested or verified: a resource an MCP client reads renders the same
// text as `workrail export --markdown` at a fraction of the cost. Nothing
// from outside the store may come this way; a bundle file goes through
// Read. The maps are read, never written.
func Unsealed(evs []event.Event, snaps map[engine.SnapshotRef]run.Snapshot, wfs map[engine.WorkflowHash]compile.Compiled) (*Verified, error) {
	if len(evs) == 0 {
		return nil, fmt.Errorf("bundle: unsealed: the session has no events")
	}
	g, ov, ln, err := fold(evs[0].Session, evs, snaps)
	if err != nil {
		return nil, fmt.Errorf("bundle: unsealed: %w", err)
	}
	d, err := derive(g, ov, RedactNone, RedactNone)
	if err != nil {
		return nil, fmt.Errorf("bundle: unsealed: %w", err)
	}
	b := &Bundle{Format: Format, Version: SchemaVersion}
	d.fill(b)
	return &Verified{Bundle: b, Events: evs, Snapshots: snaps, Workflows: wfs, Graph: g, overview: ov, lineage: ln}, nil
}
