package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// SalvageReport says what a salvage copied and what it left behind.
type SalvageReport struct {
	// Structure is the damage found in the source file's pages.
	Structure []string           `json:"structure"`
	Salvaged  []engine.SessionID `json:"salvaged"`
	Lost      []Lost             `json:"lost"`
}

// Lost is a session a salvage could not copy, and why.
type Lost struct {
	Session engine.SessionID `json:"sessionId"`
	Reason  string           `json:"reason"`
}

// errLost rolls back the copy of a session that does not verify.
type errLost struct{ reason string }

func (e errLost) Error() string { return e.reason }

// Salvage copies every session of the file at src whose log verifies,
// with the node snapshots and pinned workflows it references, into a new
// database at out (which must not exist yet). It reads src's pages
// itself, never through bbolt, so damage anywhere in the file costs only
// the sessions whose records are in the damaged pages. Events and their
// digest chain are copied byte for byte and the indexes refolded from
// them. Session ids are kept, and no id a lost session had is handed out
// again: tokens agents hold still name the same sessions, or none.
func Salvage(src, out string) (SalvageReport, error) {
	rep := SalvageReport{Structure: []string{}, Salvaged: []engine.SessionID{}, Lost: []Lost{}}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("store: salvage: %s already exists; name a new file", out)
	}
	root, problems, err := readPages(src, true)
	if err != nil {
		return rep, err
	}
	rep.Structure = append(rep.Structure, problems...)
	dst, err := Open(out, Options{})
	if err != nil {
		return rep, err
	}
	defer dst.Close()
	from := sourceOf(root)
	top := from.top()
	for n := uint64(1); n <= top; n++ {
		id := engine.SessionID(n)
		sb, why := from.session(id)
		if sb == nil && why == "" {
			continue // never created
		}
		if sb != nil {
			err := dst.commit.update(func(btx *bbolt.Tx) error { return from.copy(btx, id, sb) })
			var lost errLost
			if errors.As(err, &lost) {
				why = lost.reason
			} else if err != nil {
				return rep, err
			} else {
				rep.Salvaged = append(rep.Salvaged, id)
				continue
			}
		}
		rep.Lost = append(rep.Lost, Lost{Session: id, Reason: why})
	}
	return rep, dst.commit.update(func(btx *bbolt.Tx) error {
		return btx.Bucket(bucketSessions).SetSequence(top)
	})
}

// source is what the pages of a damaged file yielded.
type source struct {
	sessions             *rawBucket
	snapshots, workflows *rawBucket
}

func sourceOf(root *rawBucket) source {
	empty := &rawBucket{entries: map[string][]byte{}, buckets: map[string]*rawBucket{}}
	pick := func(name []byte) *rawBucket {
		if root != nil && root.buckets[string(name)] != nil {
			return root.buckets[string(name)]
		}
		return empty
	}
	return source{sessions: pick(bucketSessions), snapshots: pick(bucketSnapshots), workflows: pick(bucketWorkflows)}
}

// top is the highest session id handed out, or found.
func (s source) top() uint64 {
	top := s.sessions.seq
	for k := range s.sessions.buckets {
		if len(k) == 8 {
			top = max(top, binary.BigEndian.Uint64([]byte(k)))
		}
	}
	return top
}

// session is session id's bucket when all of it was read; else nil and
// why ("" when the session never existed).
func (s source) session(id engine.SessionID) (*rawBucket, string) {
	sb := s.sessions.buckets[string(sessionKey(id))]
	switch {
	case sb == nil && len(s.sessions.problems) > 0:
		return nil, "its records were in a damaged part of the file: " + s.sessions.problems[0]
	case sb == nil:
		return nil, ""
	case sb.damaged():
		return nil, "its records are damaged: " + firstProblem(sb)
	}
	return sb, ""
}

func firstProblem(b *rawBucket) string {
	if len(b.problems) > 0 {
		return b.problems[0]
	}
	for _, c := range b.buckets {
		if p := firstProblem(c); p != "" {
			return p
		}
	}
	return ""
}

// copy writes session id into a new file and keeps it only if its log
// verifies there, with every record it references.
func (s source) copy(btx *bbolt.Tx, id engine.SessionID, sb *rawBucket) error {
	b, err := createSession(btx.Bucket(bucketSessions), id)
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketEvents, bucketChain} {
		raw := sb.buckets[string(name)]
		if raw == nil {
			return errLost{fmt.Sprintf("its %s bucket is missing", name)}
		}
		for k, v := range raw.entries {
			if k == "" {
				return errLost{fmt.Sprintf("its %s bucket holds an entry without a key", name)}
			}
			if err := b.Bucket(name).Put([]byte(k), v); err != nil {
				return err
			}
		}
	}
	if err := b.Put(keyHead, sb.entries[string(keyHead)]); err != nil {
		return err
	}
	t := newTx(btx, b, id)
	var evs []event.Event
	h := t.verifyChain(func(e event.Event) error {
		evs = append(evs, e)
		return s.reference(btx, e)
	})
	if h.Status != execute.Healthy {
		return errLost{"its log fails verification: " + h.Reason}
	}
	return refold(t, evs)
}

// reference copies the snapshot or pinned workflow e names, if the
// source holds it whole.
func (s source) reference(btx *bbolt.Tx, e event.Event) error {
	r, ok := referenced(e)
	if !ok {
		return nil
	}
	from := s.snapshots
	if r.kind == blobWorkflow {
		from = s.workflows
	}
	v, ok := from.entries[string(r.d[:])]
	if !ok || engine.Sum(v) != r.d {
		return fmt.Errorf("%s %s is missing or damaged", r.bucket(), r.d)
	}
	return putCAS(btx.Bucket(r.bucket()), r.d, v)
}
