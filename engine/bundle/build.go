package bundle

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	marker "github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/engine/run"
)

// ExportOptions says how a session is exported.
type ExportOptions struct {
	// RedactNotes replaces every note body with RedactedMarker before any
	// digest is computed; the bundle says it is redacted.
	RedactNotes bool `json:"redactNotes,omitempty"`
	// Redact masks everything free-form (RedactAll), note bodies
	// included, so it implies RedactNotes.
	Redact bool `json:"redact,omitempty"`
	// Keys, under Redact, finds the secrets in the object keys Redact
	// keeps (of context values and artifacts), which are then replaced by
	// their markers as a scan on the way in replaces them; nil leaves
	// them as they are.
	Keys marker.Scanner `json:"-"`
}

// Level is the redaction o asks for.
func (o ExportOptions) Level() Redaction {
	switch {
	case o.Redact:
		return RedactAll
	case o.RedactNotes:
		return RedactNotes
	}
	return RedactNone
}

// Source is what a bundle is built from: one session's verified events,
// in log order, and what they reference: node snapshots, and pinned
// workflows as the canonical JSON their addresses digest.
type Source struct {
	Events    []event.Event
	Snapshots map[engine.SnapshotRef]run.Snapshot
	Workflows map[engine.WorkflowHash][]byte
}

// Build makes the bundle of src. What o's redaction leaves out is left
// out before anything is derived or digested.
func Build(src Source, o ExportOptions) (*Bundle, error) {
	if len(src.Events) == 0 {
		return nil, fmt.Errorf("bundle: build: the session has no events")
	}
	level := o.Level()
	evs, snaps, err := redacted(level, src.Events, src.Snapshots, o.Keys)
	if err != nil {
		return nil, err
	}
	raw, head, err := encodeEvents(evs)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Format: Format, Version: SchemaVersion, Events: raw,
		Snapshots: map[engine.SnapshotRef]json.RawMessage{}, Workflows: map[engine.WorkflowHash]json.RawMessage{}}
	if err := WalkReferences(evs, func(_ event.Event, ref engine.SnapshotRef) error {
		return addSnapshot(b, snaps, ref)
	}, func(_ event.Event, h engine.WorkflowHash) error {
		w, ok := src.Workflows[h]
		if !ok {
			return fmt.Errorf("bundle: build: pinned workflow %s: %w", h, engine.ErrNotFound)
		}
		b.Workflows[h] = w
		return nil
	}); err != nil {
		return nil, err
	}
	g, ov, _, err := fold(evs[0].Session, evs, snaps)
	if err != nil {
		return nil, fmt.Errorf("bundle: build: %w", err)
	}
	d, err := derive(g, ov, level, level)
	if err != nil {
		return nil, fmt.Errorf("bundle: build: %w", err)
	}
	d.fill(b)
	b.Manifest = Manifest{EventCount: len(evs), ChainHead: head}
	if err := b.seal(); err != nil {
		return nil, err
	}
	return b, nil
}

// addSnapshot writes snapshot ref of src into b as its canonical JSON,
// which must digest to ref.
func addSnapshot(b *Bundle, src map[engine.SnapshotRef]run.Snapshot, ref engine.SnapshotRef) error {
	s, ok := src[ref]
	if !ok {
		return fmt.Errorf("bundle: build: snapshot %s: %w", ref, engine.ErrNotFound)
	}
	raw, d, err := canon.Digest(s)
	if err != nil {
		return fmt.Errorf("bundle: build: snapshot %s: %w", ref, err)
	}
	if d != engine.Digest(ref) {
		return fmt.Errorf("bundle: build: snapshot %s reads back as %s", ref, d)
	}
	b.Snapshots[ref] = raw
	return nil
}

// WalkReferences calls snapshot for each snapshot the node_created
// events of evs name and workflow for each workflow their run_started
// events pin: once each, with the first event that names it, in log
// order. It stops at the first error and returns it.
func WalkReferences(evs []event.Event, snapshot func(event.Event, engine.SnapshotRef) error, workflow func(event.Event, engine.WorkflowHash) error) error {
	snaps, wfs := map[engine.SnapshotRef]bool{}, map[engine.WorkflowHash]bool{}
	for _, e := range evs {
		var err error
		switch d := e.Data.(type) {
		case *event.NodeCreatedData:
			if !snaps[d.Snapshot] {
				snaps[d.Snapshot] = true
				err = snapshot(e, d.Snapshot)
			}
		case *event.RunStartedData:
			if !wfs[d.WorkflowHash] {
				wfs[d.WorkflowHash] = true
				err = workflow(e, d.WorkflowHash)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Encode returns the canonical JSON (RFC 8785) of b: the same bundle
// always has the same bytes.
func Encode(b *Bundle) ([]byte, error) { return canon.JSON(b) }

// encodeEvents returns each event's canonical bytes and the head of the
// digest chain over them.
func encodeEvents(evs []event.Event) ([]json.RawMessage, engine.Digest, error) {
	out := make([]json.RawMessage, len(evs))
	var head engine.Digest
	for i, e := range evs {
		b, err := event.Encode(e)
		if err != nil {
			return nil, head, err
		}
		out[i], head = b, event.Chain(head, b)
	}
	return out, head, nil
}

func digestOf(v any) (engine.Digest, error) {
	_, d, err := canon.Digest(v)
	return d, err
}

// snapshotsOf reads snapshots from a map, for a fold.
func snapshotsOf(m map[engine.SnapshotRef]run.Snapshot) project.SnapshotFunc {
	return func(ref engine.SnapshotRef) (run.Snapshot, error) {
		s, ok := m[ref]
		if !ok {
			return s, fmt.Errorf("bundle: snapshot %s: %w", ref, engine.ErrNotFound)
		}
		return s, nil
	}
}

// sortedKeys returns m's keys in their text order, which is the order
// canonical JSON writes them in.
func sortedKeys[K interface {
	comparable
	String() string
}, V any](m map[K]V) []K {
	return slices.SortedFunc(maps.Keys(m), func(a, b K) int { return strings.Compare(a.String(), b.String()) })
}
