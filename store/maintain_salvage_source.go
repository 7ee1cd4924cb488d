package store

import (
	"encoding/binary"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store/pagefile"
)

// adopt adds the content-addressed records a scan found where the walk
// found none whole: a digest names its content, so any copy that hashes
// to it is the record.
func (s source) adopt(blobs map[engine.Digest][]byte) {
	for d, v := range blobs {
		for _, b := range []*pagefile.Bucket{s.snapshots, s.workflows} {
			if old, ok := b.Entries[string(d[:])]; !ok || engine.Sum(old) != d {
				b.Entries[string(d[:])] = v
				if b == s.workflows {
					s.pins.from[d] = FromPageScan
				}
			}
		}
	}
}

// source is what the pages of a damaged file yielded.
type source struct {
	sessions             *pagefile.Bucket
	snapshots, workflows *pagefile.Bucket
	meta                 *pagefile.Bucket
	// counted says the sessions bucket's header, with the session-id
	// counter, was read from the root.
	counted bool
	// pins are the pinned workflows taken from elsewhere than the tree.
	pins *pinSearch
}

func sourceOf(root *pagefile.Bucket, o SalvageOptions) source {
	pick := func(name []byte) *pagefile.Bucket {
		if root != nil && root.Buckets[string(name)] != nil {
			return root.Buckets[string(name)]
		}
		return &pagefile.Bucket{Entries: map[string][]byte{}, Buckets: map[string]*pagefile.Bucket{}, Problems: []string{"not reached"}}
	}
	counted := root != nil && root.Buckets[string(bucketSessions)] != nil
	return source{sessions: pick(bucketSessions), snapshots: pick(bucketSnapshots), workflows: pick(bucketWorkflows), meta: pick(bucketMeta),
		counted: counted, pins: newPinSearch(o.Workflows)}
}

// schema is the file's schema version, if its meta bucket was read.
func (s source) schema() (uint64, bool) {
	v, ok := s.meta.Entries[string(keySchema)]
	if len(s.meta.Problems) > 0 || !ok || len(v) != 8 {
		return 0, false
	}
	return binary.BigEndian.Uint64(v), true
}

// listed reports whether the walk read the whole list of sessions.
func (s source) listed() bool { return len(s.sessions.Problems) == 0 }

// count says how top, the highest session id known, is known.
func (s source) count(top uint64) Count {
	switch {
	case s.listed():
		return CountExact
	case s.counted:
		return CountCounter
	case top > 0:
		return CountAtLeast
	}
	return CountUnknown
}

// top is the highest session id handed out, or found.
func (s source) top() uint64 {
	top := s.sessions.Seq
	for k := range s.sessions.Buckets {
		if len(k) == 8 {
			top = max(top, binary.BigEndian.Uint64([]byte(k)))
		}
	}
	return top
}

// session is session id's bucket when all of it was read; else nil and
// why ("" when the walk did not find it).
func (s source) session(id engine.SessionID) (*pagefile.Bucket, string) {
	sb := s.sessions.Buckets[string(sessionKey(id))]
	switch {
	case sb == nil:
		return nil, "" // never created, deleted, or not reached
	case sb.Damaged():
		return nil, "its records are damaged: " + firstProblem(sb)
	}
	return sb, ""
}

func firstProblem(b *pagefile.Bucket) string {
	if len(b.Problems) > 0 {
		return b.Problems[0]
	}
	for _, c := range b.Buckets {
		if p := firstProblem(c); p != "" {
			return p
		}
	}
	return ""
}

// copy writes session id into a new file and keeps it only if its log
// verifies there, with every record it references. It returns the
// pinned workflows it took from elsewhere than the file's tree.
func (s source) copy(btx *bbolt.Tx, id engine.SessionID, sb *pagefile.Bucket) ([]RestoredPin, error) {
	b, err := createSession(btx.Bucket(bucketSessions), id)
	if err != nil {
		return nil, err
	}
	if err := markWritten(btx, sessionKey(id)); err != nil {
		return nil, err
	}
	for _, name := range [][]byte{bucketEvents, bucketChain} {
		raw := sb.Buckets[string(name)]
		if raw == nil {
			return nil, errLost{reason: fmt.Sprintf("its %s bucket is missing", name)}
		}
		for k, v := range raw.Entries {
			if k == "" {
				return nil, errLost{reason: fmt.Sprintf("its %s bucket holds an entry without a key", name)}
			}
			if err := b.Bucket(name).Put([]byte(k), v); err != nil {
				return nil, err
			}
		}
	}
	if err := b.Put(keyHead, sb.Entries[string(keyHead)]); err != nil {
		return nil, err
	}
	t := newTx(btx, b, id)
	var evs []event.Event
	refs := &references{}
	h := t.verifyChain(func(e event.Event) error {
		evs = append(evs, e)
		return s.reference(btx, e, refs)
	})
	switch {
	case h.Status != execute.Healthy:
		return nil, errLost{reason: "its log fails verification: " + h.Reason, needs: refs.needs}
	case len(refs.needs) > 0:
		return nil, errLost{reason: needsReason(refs.needs), needs: refs.needs}
	}
	return refs.restored, refold(t, evs)
}

// references is what the copy of one session found of the records its
// events name: the session's workspace (the catalog its runs were
// started from), the pinned workflows neither the file nor the workflow
// files hold, and those taken from elsewhere than the tree.
type references struct {
	workspace string
	needs     []Pin
	restored  []RestoredPin
}

// reference copies the snapshot or pinned workflow e names, if the
// source holds it whole; a pinned workflow is also looked for where
// pins finds it, and when it is nowhere the copy goes on to name every
// pin the session needs.
func (s source) reference(btx *bbolt.Tx, e event.Event, refs *references) error {
	switch d := e.Data.(type) {
	case *event.SessionCreatedData:
		refs.workspace = d.WorkspacePath
		return nil
	case *event.RunStartedData:
		pin := Pin{WorkflowID: d.WorkflowID, WorkflowHash: d.WorkflowHash}
		v, from, ok := s.pins.find(s.workflows, refs.workspace, pin)
		if !ok {
			if !slices.Contains(refs.needs, pin) {
				refs.needs = append(refs.needs, pin)
			}
			return nil
		}
		if from != "" && !slices.ContainsFunc(refs.restored, func(r RestoredPin) bool { return r.Pin == pin }) {
			refs.restored = append(refs.restored, RestoredPin{Pin: pin, From: from})
		}
		return putCAS(btx.Bucket(bucketWorkflows), engine.Digest(pin.WorkflowHash), v)
	}
	r, ok := referenced(e)
	if !ok {
		return nil
	}
	v, ok := s.snapshots.Entries[string(r.d[:])]
	if !ok || engine.Sum(v) != r.d {
		return fmt.Errorf("%s %s is missing or damaged", r.bucket(), r.d)
	}
	return putCAS(btx.Bucket(r.bucket()), r.d, v)
}
