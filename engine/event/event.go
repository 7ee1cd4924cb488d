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

// Kinds lists the event kinds in a fixed order.
func Kinds() []Kind {
	return []Kind{SessionCreated, ObservationRecorded, RunStarted, NodeCreated, EdgeCreated, NodeOutputAppended,
		PreferencesChanged, CapabilityObserved, GapRecorded, DivergenceRecorded, DecisionTraceAppended, AdvanceRecorded}
}

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
// AppendedAt and Origin are the Stamp of the write that appended it; both
// are absent from the events earlier builds wrote, which stay valid byte
// for byte. They sit in the envelope so the chain's digest covers them.
type Event struct {
	ID         engine.EventID    `json:"eventId"`
	Index      engine.EventIndex `json:"eventIndex"`
	Session    engine.SessionID  `json:"sessionId"`
	Kind       Kind              `json:"kind"`
	Run        engine.RunID      `json:"runId,omitzero"`
	Node       engine.NodeID     `json:"nodeId,omitzero"`
	AppendedAt Millis            `json:"appendedAt,omitzero"`
	Origin     Origin            `json:"origin,omitzero"`
	Data       Payload           `json:"data"`
}

// Stamp is what a write tells of itself on each event it appends.
func (e Event) Stamp() Stamp { return Stamp{At: e.AppendedAt, Origin: e.Origin} }

// Stamped returns e carrying s.
func (e Event) Stamped(s Stamp) Event {
	e.AppendedAt, e.Origin = s.At, s.Origin
	return e
}

// Encode returns the canonical (JCS) bytes of e: the bytes the store keeps
// and the chain hashes.
func Encode(e Event) ([]byte, error) {
	if e.Data == nil || e.Data.Kind() != e.Kind {
		return nil, fmt.Errorf("event: encode %s: payload does not match kind", e.Kind)
	}
	if !e.Origin.Valid() {
		return nil, fmt.Errorf("event: encode %s: unknown origin %q", e.Kind, e.Origin)
	}
	if b, ok := encodeFast(e); ok {
		return b, nil
	}
	return canon.JSON(e)
}

// Decode parses stored event bytes strictly: unknown kinds, unknown fields,
// trailing data and anything but Encode's canonical output are errors.
func Decode(b []byte) (Event, error) {
	if e, ok := decodeFast(b); ok {
		return e, nil
	}
	if e, ok := decodeCanonical(b); ok {
		return e, nil
	}
	return decodeStrict(b)
}

// decodeCanonical is Decode's path for what the store holds: bytes that
// are exactly Encode's output. It reads them in one pass, into the payload
// type of the kind they name, and keeps the event only if it encodes back
// to the same bytes. Those bytes are then the canonical encoding of that
// event, which decodeStrict accepts and reads as the same event (its
// extra checks, unknown fields and trailing data, cannot fail on Encode's
// output), so this answers nothing decodeStrict would not. Anything else
// is left to decodeStrict, which says what is wrong with it.
func decodeCanonical(b []byte) (Event, bool) {
	p, ok := newPayload(kindOf(b))
	if !ok {
		return Event{}, false
	}
	e := Event{Data: p} // encoding/json fills the payload Data points to
	if json.Unmarshal(b, &e) != nil || e.Data != p || e.Kind != p.Kind() {
		return Event{}, false
	}
	if e.ID != engine.NewEventID(e.Session, e.Index) || !e.Origin.Valid() {
		return Event{}, false
	}
	if enc, err := Encode(e); err != nil || !bytes.Equal(enc, b) {
		return Event{}, false
	}
	return e, true
}

// kindOf guesses the kind canonical event bytes name: the envelope's keys
// are in order, so its "kind" comes after the payload, the last such key.
// A wrong guess only sends the bytes to decodeStrict.
func kindOf(b []byte) Kind {
	const key = `,"kind":"`
	i := bytes.LastIndex(b, []byte(key))
	if i < 0 {
		return ""
	}
	rest := b[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return Kind(rest[:j])
}

// decodeStrict is Decode for any bytes.
func decodeStrict(b []byte) (Event, error) {
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
	if !e.Origin.Valid() {
		return Event{}, fmt.Errorf("event: decode: unknown origin %q", e.Origin)
	}
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
