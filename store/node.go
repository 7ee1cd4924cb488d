package store

import (
	"math"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// decodeNode reads a node's index record. Every read of a run walks
// nodes (a rehydrate's recap, an advance's resume record, the Console's
// pages), so the record json.Marshal writes is read here without
// reflection, in less than half the time json/v2 takes
// (BenchmarkDecodeNode), a few per cent of an advance: its members in
// any order, each of the type it is written with. Anything else (a
// member this reader does not know, an escape in a string, a value of
// another type) is handed whole to json/v2 with encoding/json's
// semantics (its v1 API), whose result and errors are the record's;
// TestDecodeNodeIsUnmarshal and FuzzDecodeNode hold the two to
// json.Unmarshal.
func decodeNode(b []byte, n *project.Node) error {
	if fastNode(b, n) {
		return nil
	}
	*n = project.Node{}
	return jsonv1.Unmarshal(b, n)
}

func fastNode(b []byte, n *project.Node) bool {
	r := nodeReader{in: b}
	if !r.byte('{') {
		return false
	}
	if r.byte('}') {
		return r.i == len(b)
	}
	for {
		key, ok := r.str()
		if !ok || !r.byte(':') || !r.member(string(key), n) {
			return false
		}
		if r.byte('}') {
			return r.i == len(b)
		}
		if !r.byte(',') {
			return false
		}
	}
}

// nodeReader reads the compact JSON json.Marshal writes: no space, and
// strings without escapes.
type nodeReader struct {
	in []byte
	i  int
}

func (r *nodeReader) member(key string, n *project.Node) bool {
	switch key {
	case "id":
		return r.text(&n.ID)
	case "run":
		return r.text(&n.Run)
	case "kind":
		s, ok := r.str()
		n.Kind = nodeKind(s)
		return ok
	case "snapshot":
		return r.text(&n.Snapshot)
	case "createdAt":
		return uint64Into(r, &n.CreatedAt)
	case "createdTime":
		return uint64Into(r, &n.CreatedTime)
	case "parent":
		return r.text(&n.Parent)
	case "children":
		return r.array(func() bool {
			var id engine.NodeID
			ok := r.text(&id)
			n.Children = append(n.Children, id)
			return ok
		}, n.Children == nil)
	case "attempts":
		v, ok := r.uint(32)
		n.Attempts = engine.Attempt(v)
		return ok
	case "outputs":
		return r.indexes(&n.Outputs)
	case "pathOutputs":
		v, ok := r.uint(31)
		n.PathOutputs = int(v)
		return ok
	case "lastActivity":
		return uint64Into(r, &n.LastActivity)
	case "gaps":
		return r.indexes(&n.Gaps)
	}
	return false
}

// nodeKind is the kind s names, without allocating for the known ones.
func nodeKind(s []byte) event.NodeKind {
	for _, k := range event.NodeKinds() {
		if string(s) == string(k) {
			return k
		}
	}
	return event.NodeKind(s)
}

func uint64Into[T ~uint64](r *nodeReader, dst *T) bool {
	v, ok := r.uint(64)
	*dst = T(v)
	return ok
}

func (r *nodeReader) indexes(dst *[]engine.EventIndex) bool {
	return r.array(func() bool {
		v, ok := r.uint(64)
		*dst = append(*dst, engine.EventIndex(v))
		return ok
	}, *dst == nil)
}

// array reads [item, …] (an empty one leaves the slice nil, as
// json.Marshal's omitempty never writes one); first says the member was
// not seen before.
func (r *nodeReader) array(item func() bool, first bool) bool {
	if !first || !r.byte('[') || r.byte(']') {
		return false
	}
	for {
		if !item() {
			return false
		}
		if r.byte(']') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

func (r *nodeReader) byte(c byte) bool {
	if r.i < len(r.in) && r.in[r.i] == c {
		r.i++
		return true
	}
	return false
}

// str reads a string without escapes or control characters, as the
// bytes between its quotes.
func (r *nodeReader) str() ([]byte, bool) {
	if !r.byte('"') {
		return nil, false
	}
	start := r.i
	for r.i < len(r.in) {
		switch c := r.in[r.i]; {
		case c == '"':
			r.i++
			return r.in[start : r.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
		r.i++
	}
	return nil, false
}

// text reads a string into a value that reads itself from text (an id,
// a digest), as json.Unmarshal does.
func (r *nodeReader) text(dst interface{ UnmarshalText([]byte) error }) bool {
	s, ok := r.str()
	return ok && dst.UnmarshalText(s) == nil
}

// uint reads an unsigned integer of at most bits bits, digits only.
func (r *nodeReader) uint(bits int) (uint64, bool) {
	start := r.i
	for r.i < len(r.in) && r.in[r.i] >= '0' && r.in[r.i] <= '9' {
		r.i++
	}
	if r.i == start || r.i-start > 1 && r.in[start] == '0' {
		return 0, false
	}
	if r.i-start > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range r.in[start:r.i] {
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, bits == 64 || v < 1<<bits
}
