// Package event owns the closed set of durable event kinds, their typed
// payloads, their canonical encoding and the digest chain that links them.
// It imports only the engine's own types: no storage, no clock.
package event

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
)

// Kind is the closed set of event kinds.
type Kind string

// The event kinds: the locks' closed set plus advance_recorded.
const (
	SessionCreated        Kind = "session_created"
	ObservationRecorded   Kind = "observation_recorded"
	RunStarted            Kind = "run_started"
	NodeCreated           Kind = "node_created"
	EdgeCreated           Kind = "edge_created"
	NodeOutputAppended    Kind = "node_output_appended"
	PreferencesChanged    Kind = "preferences_changed"
	CapabilityObserved    Kind = "capability_observed"
	GapRecorded           Kind = "gap_recorded"
	DivergenceRecorded    Kind = "divergence_recorded"
	DecisionTraceAppended Kind = "decision_trace_appended"
	AdvanceRecorded       Kind = "advance_recorded"
)

// Payload is the typed body of an event; each kind has exactly one type.
type Payload interface{ Kind() Kind }

// newPayload returns an empty payload for kind k, or false for a kind
// outside the closed set.
func newPayload(k Kind) (Payload, bool) {
	switch k {
	case SessionCreated:
		return &SessionCreatedData{}, true
	case ObservationRecorded:
		return &ObservationRecordedData{}, true
	case RunStarted:
		return &RunStartedData{}, true
	case NodeCreated:
		return &NodeCreatedData{}, true
	case EdgeCreated:
		return &EdgeCreatedData{}, true
	case NodeOutputAppended:
		return &NodeOutputAppendedData{}, true
	case PreferencesChanged:
		return &PreferencesChangedData{}, true
	case CapabilityObserved:
		return &CapabilityObservedData{}, true
	case GapRecorded:
		return &GapRecordedData{}, true
	case DivergenceRecorded:
		return &DivergenceRecordedData{}, true
	case DecisionTraceAppended:
		return &DecisionTraceAppendedData{}, true
	case AdvanceRecorded:
		return &AdvanceRecordedData{}, true
	}
	return nil, false
}

// Event is the one envelope every durable fact shares. Run and Node are
// optional scope references; zero means "not scoped to a run/node".
type Event struct {
	ID      engine.EventID    `json:"eventId"`
	Index   engine.EventIndex `json:"eventIndex"`
	Session engine.SessionID  `json:"sessionId"`
	Kind    Kind              `json:"kind"`
	Run     engine.RunID      `json:"runId,omitzero"`
	Node    engine.NodeID     `json:"nodeId,omitzero"`
	Data    Payload           `json:"data"`
}

// Encode returns the canonical (JCS) bytes of e: the bytes the store keeps
// and the chain hashes.
func Encode(e Event) ([]byte, error) {
	if e.Data == nil || e.Data.Kind() != e.Kind {
		return nil, fmt.Errorf("event: encode %s: payload does not match kind", e.Kind)
	}
	return canon.JSON(e)
}

// Decode parses stored event bytes strictly: unknown kinds, unknown fields,
// trailing data and anything but Encode's canonical output are errors.
func Decode(b []byte) (Event, error) {
	var env struct {
		Event
		Data json.RawMessage `json:"data"`
	}
	if err := strictUnmarshal(b, &env); err != nil {
		return Event{}, fmt.Errorf("event: decode envelope: %w", err)
	}
	p, ok := newPayload(env.Kind)
	if !ok {
		return Event{}, fmt.Errorf("event: decode: unknown kind %q", env.Kind)
	}
	if err := strictUnmarshal(env.Data, p); err != nil {
		return Event{}, fmt.Errorf("event: decode %s payload: %w", env.Kind, err)
	}
	e := env.Event
	e.Data = p
	if e.ID != engine.NewEventID(e.Session, e.Index) {
		return Event{}, fmt.Errorf("event: decode: eventId %q does not match session and index", e.ID)
	}
	// Stored events are exactly what Encode writes. Bytes that decode but
	// are not that encoding (keys in another case, a missing id read as
	// zero, other formatting) were not written by WorkRail.
	if enc, err := Encode(e); err != nil || !bytes.Equal(enc, b) {
		return Event{}, fmt.Errorf("event: decode %s: not the canonical encoding WorkRail writes", e.Kind)
	}
	return e, nil
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}

// Chain links an event to its predecessor:
// digest_i = sha256(digest_{i-1} ‖ JCS(event_i)); the first event chains
// from the zero digest.
func Chain(prev engine.Digest, encoded []byte) engine.Digest {
	buf := make([]byte, 0, len(prev)+len(encoded))
	buf = append(buf, prev[:]...)
	buf = append(buf, encoded...)
	return engine.Sum(buf)
}
