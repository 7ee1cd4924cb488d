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
	"github.com/workrail/workrail/engine/run"
)

// ExportOptions says how a session is exported.
type ExportOptions struct {
	// RedactNotes replaces every note body with RedactedMarker before any
	// digest is computed; the bundle says it is redacted.
	RedactNotes bool `json:"redactNotes,omitempty"`
}

// Source is what a bundle is built from: one session's verified events,
// in log order, and what they reference (node snapshots and pinned
// workflows, as the canonical JSON their addresses digest).
type Source struct {
	Events    []event.Event
	Snapshots map[engine.SnapshotRef][]byte
	Workflows map[engine.WorkflowHash][]byte
}

// Build makes the bundle of src. With o.RedactNotes, note bodies are
// replaced before anything is derived or digested.
func Build(src Source, o ExportOptions) (*Bundle, error) {
	if len(src.Events) == 0 {
		return nil, fmt.Errorf("bundle: build: the session has no events")
	}
	evs := src.Events
	if o.RedactNotes {
		evs = redact(evs)
	}
	raw, head, err := encodeEvents(evs)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Format: Format, Version: SchemaVersion, Events: raw,
		Snapshots: map[engine.SnapshotRef]json.RawMessage{}, Workflows: map[engine.WorkflowHash]json.RawMessage{}}
	snaps := map[engine.SnapshotRef]run.Snapshot{}
	for _, e := range evs {
		switch d := e.Data.(type) {
		case *event.NodeCreatedData:
			if err := addSnapshot(b, snaps, src.Snapshots, d.Snapshot); err != nil {
				return nil, err
			}
		case *event.RunStartedData:
			w, ok := src.Workflows[d.WorkflowHash]
			if !ok {
				return nil, fmt.Errorf("bundle: build: pinned workflow %s: %w", d.WorkflowHash, engine.ErrNotFound)
			}
			b.Workflows[d.WorkflowHash] = w
		}
	}
	g, ov, err := fold(evs[0].Session, evs, snaps)
	if err != nil {
		return nil, fmt.Errorf("bundle: build: %w", err)
	}
	d, err := derive(g, ov, o.RedactNotes)
	if err != nil {
		return nil, fmt.Errorf("bundle: build: %w", err)
	}
	d.fill(b)
	b.Manifest = Manifest{EventCount: len(evs), ChainHead: head}
	for _, p := range b.parts() {
		if *p.entry, err = digestOf(p.value); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func addSnapshot(b *Bundle, decoded map[engine.SnapshotRef]run.Snapshot, src map[engine.SnapshotRef][]byte, ref engine.SnapshotRef) error {
	if _, ok := decoded[ref]; ok {
		return nil
	}
	raw, ok := src[ref]
	if !ok {
		return fmt.Errorf("bundle: build: snapshot %s: %w", ref, engine.ErrNotFound)
	}
	var s run.Snapshot
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("bundle: build: snapshot %s: %w", ref, err)
	}
	decoded[ref], b.Snapshots[ref] = s, raw
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
