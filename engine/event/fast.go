package event

import (
	"bytes"
	"encoding/hex"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// A run's log is mostly node_created, edge_created and advance_recorded
// events with nothing but ids, digests, small numbers and plain names in
// them, and node_output_appended events with a step's notes; reading a
// session decodes and re-encodes every one of them (a rehydrate's recap
// and each write's resume record read the notes, a rehydrate's drift
// check the session_created event for its workspace). encodeFast and
// decodeFast do that without reflection for those five kinds. Each
// answers only inside a narrow domain (names of printable ASCII without
// escapes, notes of valid UTF-8, integers of at most 15 digits, no lists:
// an output with artifacts declines), where the canonical encoding is a
// fixed layout, and declines anything else, which then takes the general
// path. FuzzEncodeFast and FuzzEncodeFastNotes hold encodeFast to
// canon.JSON's bytes and FuzzDecodeCanonical holds decodeFast to
// decodeStrict's event (FuzzEncodeFastNotes also covers session_created,
// whose two strings are written as notes are).

// maxFastInt bounds the integers the fast paths take: up to 15 digits
// an integer's canonical (ES6) form is its decimal digits.
const maxFastInt = 999_999_999_999_999

// encodeFast returns Encode(e) for the events it knows; false otherwise.
// e.Data.Kind() == e.Kind is checked by the caller.
func encodeFast(e Event) ([]byte, bool) {
	w := writer{b: make([]byte, 0, 320)}
	w.raw(`{`)
	if e.AppendedAt != 0 {
		w.num(`"appendedAt":`, uint64(e.AppendedAt))
		w.raw(`,`)
	}
	w.raw(`"data":{`)
	switch d := e.Data.(type) {
	case *NodeCreatedData:
		w.str(`"nodeKind":`, string(d.NodeKind))
		w.raw(`,"snapshotRef":"sha256:`)
		w.b = append(hex.AppendEncode(w.b, d.Snapshot[:]), '"')
	case *EdgeCreatedData:
		if d.Attempt != 0 || d.KeyID != 0 {
			return nil, false
		}
		w.str(`"edgeKind":`, string(d.EdgeKind))
		w.id(`,"fromNodeId":"node_`, uint64(d.From))
		w.id(`,"toNodeId":"node_`, uint64(d.To))
	case *AdvanceRecordedData:
		if len(d.Skipped) > 0 || len(d.LoopExits) > 0 || len(d.Notices) > 0 || d.Fork != nil || len(d.Blockers) > 0 {
			return nil, false
		}
		w.num(`"attempt":`, uint64(d.Attempt))
		w.num(`,"keyId":`, uint64(d.KeyID))
		w.str(`,"outcome":`, string(d.Outcome))
		if d.ToNode != 0 {
			w.id(`,"toNodeId":"node_`, uint64(d.ToNode))
		}
	case *SessionCreatedData:
		if d.ImportedFrom != nil {
			return nil, false
		}
		w.text(`"createdAt":`, d.CreatedAt)
		if d.WorkspacePath != "" {
			w.text(`,"workspacePath":`, d.WorkspacePath)
		}
	case *NodeOutputAppendedData:
		if len(d.Artifacts) > 0 {
			return nil, false
		}
		if d.NotesMarkdown != "" {
			w.text(`"notesMarkdown":`, d.NotesMarkdown)
			w.raw(`,`)
		}
		w.text(`"stepId":`, string(d.StepID))
		if d.Supersedes != "" {
			w.text(`,"supersedesOutputId":`, string(d.Supersedes))
		}
	default:
		return nil, false
	}
	w.str(`},"eventId":`, string(e.ID))
	w.num(`,"eventIndex":`, uint64(e.Index))
	w.str(`,"kind":`, string(e.Kind))
	if e.Node != 0 {
		w.id(`,"nodeId":"node_`, uint64(e.Node))
	}
	if e.Origin != OriginAgent {
		w.str(`,"origin":`, string(e.Origin))
	}
	if e.Run != 0 {
		w.id(`,"runId":"run_`, uint64(e.Run))
	}
	w.id(`,"sessionId":"ses_`, uint64(e.Session))
	w.raw(`}`)
	return w.b, w.ok()
}

type writer struct {
	b   []byte
	bad bool
}

func (w *writer) ok() bool     { return !w.bad }
func (w *writer) raw(s string) { w.b = append(w.b, s...) }

// str writes key and s quoted; s must need no escaping.
func (w *writer) str(key, s string) {
	for i := 0; i < len(s); i++ {
		if !plainASCII(s[i]) {
			w.bad = true
		}
	}
	w.b = append(append(append(append(w.b, key...), '"'), s...), '"')
}

// text writes key and s quoted as JCS quotes a string (jsontext's
// minimal representation is RFC 8785's). s must be valid UTF-8
// (encoding/json would replace what is not).
func (w *writer) text(key, s string) {
	var err error
	if w.b, err = jsontext.AppendQuote(append(w.b, key...), s); err != nil {
		w.bad = true
	}
}

// num writes key and n.
func (w *writer) num(key string, n uint64) {
	if n > maxFastInt {
		w.bad = true
	}
	w.b = strconv.AppendUint(append(w.b, key...), n, 10)
}

// id writes an id: keyPrefix ends with the id's opening quote and prefix.
func (w *writer) id(keyPrefix string, n uint64) {
	w.b = append(strconv.AppendUint(append(w.b, keyPrefix...), n, 10), '"')
}

// plainASCII are the bytes a canonical string holds as they are and
// encoding/json reads as themselves.
func plainASCII(c byte) bool { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' }

// decodeFast reads the events encodeFast writes, when b is exactly that
// encoding; false otherwise.
func decodeFast(b []byte) (Event, bool) {
	r := reader{b: b}
	var e Event
	r.lit(`{`)
	if r.next(`"appendedAt":`) {
		e.AppendedAt = Millis(r.num(`"appendedAt":`))
		r.lit(`,`)
	}
	r.lit(`"data":{`)
	switch kindOf(b) {
	case NodeCreated:
		d := &NodeCreatedData{}
		d.NodeKind = NodeKind(r.str(`"nodeKind":`))
		r.text(`,"snapshotRef":`, &d.Snapshot)
		e.Data = d
	case EdgeCreated:
		d := &EdgeCreatedData{}
		d.EdgeKind = EdgeKind(r.str(`"edgeKind":`))
		r.text(`,"fromNodeId":`, &d.From)
		r.text(`,"toNodeId":`, &d.To)
		e.Data = d
	case AdvanceRecorded:
		d := &AdvanceRecordedData{}
		d.Attempt = engine.Attempt(r.num32(`"attempt":`))
		d.KeyID = r.num32(`,"keyId":`)
		d.Outcome = Outcome(r.str(`,"outcome":`))
		if r.next(`,"toNodeId":`) {
			r.text(`,"toNodeId":`, &d.ToNode)
		}
		e.Data = d
	case SessionCreated:
		d := &SessionCreatedData{CreatedAt: r.unquote(`"createdAt":`)}
		if r.next(`,"workspacePath":`) {
			d.WorkspacePath = r.unquote(`,"workspacePath":`)
		}
		e.Data = d
	case NodeOutputAppended:
		d := &NodeOutputAppendedData{}
		if r.next(`"notesMarkdown":`) {
			d.NotesMarkdown = r.unquote(`"notesMarkdown":`)
			r.lit(`,`)
		}
		d.StepID = workflow.StepID(r.unquote(`"stepId":`))
		if r.next(`,"supersedesOutputId":`) {
			d.Supersedes = engine.EventID(r.unquote(`,"supersedesOutputId":`))
		}
		e.Data = d
	default:
		return Event{}, false
	}
	e.ID = engine.EventID(r.str(`},"eventId":`))
	e.Index = engine.EventIndex(r.num(`,"eventIndex":`))
	e.Kind = Kind(r.str(`,"kind":`))
	if r.next(`,"nodeId":`) {
		r.text(`,"nodeId":`, &e.Node)
	}
	if r.next(`,"origin":`) {
		e.Origin = Origin(r.str(`,"origin":`))
	}
	if r.next(`,"runId":`) {
		r.text(`,"runId":`, &e.Run)
	}
	r.text(`,"sessionId":`, &e.Session)
	r.lit(`}`)
	if r.bad || r.i != len(b) || e.Data.Kind() != e.Kind || e.ID != engine.NewEventID(e.Session, e.Index) || !e.Origin.Valid() {
		return Event{}, false
	}
	if enc, ok := encodeFast(e); !ok || !bytes.Equal(enc, b) {
		return Event{}, false
	}
	return e, true
}

// reader reads a fixed layout; the first mismatch sets bad, and later
// reads then read nothing.
type reader struct {
	b   []byte
	i   int
	bad bool
}

func (r *reader) next(s string) bool { return !r.bad && bytes.HasPrefix(r.b[r.i:], []byte(s)) }

func (r *reader) lit(s string) {
	if !r.next(s) {
		r.bad = true
		return
	}
	r.i += len(s)
}

// quoted reads key and then a string of plain ASCII, returning its bytes.
func (r *reader) quoted(key string) []byte {
	if r.lit(key); r.bad || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.bad = true
		return nil
	}
	start := r.i + 1
	j := start
	for j < len(r.b) && plainASCII(r.b[j]) {
		j++
	}
	if j >= len(r.b) || r.b[j] != '"' {
		r.bad = true
		return nil
	}
	r.i = j + 1
	return r.b[start:j]
}

func (r *reader) str(key string) string { return string(r.quoted(key)) }

// unquote reads key and a string, unquoted by jsontext. Whether its
// bytes were exactly writer.text's is left to the caller's re-encoding.
func (r *reader) unquote(key string) string {
	if r.lit(key); r.bad || r.i >= len(r.b) || r.b[r.i] != '"' {
		r.bad = true
		return ""
	}
	start, escaped := r.i, false
	for r.i++; r.i < len(r.b) && r.b[r.i] != '"'; r.i++ {
		if r.b[r.i] == '\\' {
			escaped = true
			r.i++ // the escaped byte, which may be a quote
		}
	}
	if r.i >= len(r.b) {
		r.bad = true
		return ""
	}
	r.i++
	if !escaped { // the common case
		return string(r.b[start+1 : r.i-1])
	}
	s, err := jsontext.AppendUnquote(nil, r.b[start:r.i])
	if err != nil {
		r.bad = true
	}
	return string(s)
}

// text reads key and a string into v the way encoding/json does.
func (r *reader) text(key string, v interface{ UnmarshalText([]byte) error }) {
	s := r.quoted(key)
	if !r.bad && v.UnmarshalText(s) != nil {
		r.bad = true
	}
}

// num reads key and an integer of at most 15 digits, no leading zeros.
func (r *reader) num(key string) uint64 {
	if r.lit(key); r.bad {
		return 0
	}
	start := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' && r.i-start < 16 {
		r.i++
	}
	n := r.i - start
	if n == 0 || n > 15 || (n > 1 && r.b[start] == '0') {
		r.bad = true
		return 0
	}
	v, _ := strconv.ParseUint(string(r.b[start:r.i]), 10, 64)
	return v
}

func (r *reader) num32(key string) uint32 {
	v := r.num(key)
	if v > 1<<32-1 {
		r.bad = true
	}
	return uint32(v)
}
