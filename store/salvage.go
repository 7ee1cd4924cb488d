package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// SalvageReport says what a salvage copied and what it left behind.
type SalvageReport struct {
	// Structure is the damage found in the source file's pages, each
	// damaged page named once.
	Structure []string           `json:"structure"`
	Salvaged  []engine.SessionID `json:"salvaged"`
	// Lost are the sessions found whose logs could not be verified or
	// completed, each with why (naming at most one page).
	Lost []Lost `json:"lost"`
	Reach
}

// Reach is how much of a damaged file a salvage could find: how the
// number of sessions it held is known, how many of them no intact page
// was found of, and the damage the page scan met.
type Reach struct {
	// Scanned says the tree above some sessions was damaged, so every
	// page of the file was read to find them.
	Scanned bool `json:"scanned"`
	// Count says how the number of sessions the file held is known.
	Count Count `json:"count"`
	// Unreached is how many sessions the file held, as far as Count
	// allows knowing, that no intact page was found of.
	Unreached int `json:"unreached"`
	// DamagedPages are pages in use whose header or elements do not
	// parse; MissingPages, pages in use past the end of the file.
	DamagedPages int `json:"damagedPages"`
	MissingPages int `json:"missingPages"`
}

// Held is how many sessions the file held, as Count qualifies it.
func (r SalvageReport) Held() int { return len(r.Salvaged) + len(r.Lost) + r.Unreached }

// Count is how the number of sessions a damaged file held is known.
type Count string

const (
	// CountExact: the tree listed every session.
	CountExact Count = "exact"
	// CountCounter: the list of sessions is damaged, but the session-id
	// counter was read from the file's root: Held is the ids handed out,
	// so Unreached includes any sessions retention deleted.
	CountCounter Count = "counter"
	// CountAtLeast: the root is damaged; Held is the highest session id
	// found (on older copies of the root, in lists of sessions, in
	// events), so the file held at least that many.
	CountAtLeast Count = "at_least"
	// CountUnknown: no list, counter or session id was found at all.
	CountUnknown Count = "unknown"
)

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
// the sessions whose records are in the damaged pages: it copies what the
// walk from the root reaches and, when that walk meets damage, reads
// every page for the sessions the walk could not reach (scanFile).
// Events and their digest chain are copied byte for byte and the indexes
// refolded from them. Session ids are kept, and no id a lost session had
// is handed out again: tokens agents hold still name the same sessions,
// or none.
func Salvage(src, out string) (SalvageReport, error) {
	rep := SalvageReport{Structure: []string{}, Salvaged: []engine.SessionID{}, Lost: []Lost{}, Reach: Reach{Count: CountExact}}
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
	copied := map[engine.SessionID]bool{}
	lost := map[engine.SessionID]string{}
	top := from.top()
	for n := uint64(1); n <= top; n++ {
		id := engine.SessionID(n)
		if sb, why := from.session(id); sb != nil || why != "" {
			if why, err = from.keep(dst, id, sb, why); err != nil {
				return rep, err
			}
			record(copied, lost, id, why)
		}
	}
	if len(problems) > 0 {
		rep.Scanned = true
		if top, err = from.scan(src, dst, copied, lost, &rep); err != nil {
			return rep, err
		}
		top = max(top, from.top())
	}
	rep.Salvaged = slices.Sorted(maps.Keys(copied))
	for _, id := range slices.Sorted(maps.Keys(lost)) {
		rep.Lost = append(rep.Lost, Lost{Session: id, Reason: lost[id]})
	}
	rep.Count = from.count(top)
	if rep.Count != CountExact {
		rep.Unreached = max(0, int(top)-len(copied)-len(lost))
	}
	return rep, dst.commit.update(func(btx *bbolt.Tx) error {
		return btx.Bucket(bucketSessions).SetSequence(top)
	})
}

// keep copies session id from sb (nil when it could not be read, with
// why) and says why it was not kept ("" when it was).
func (s source) keep(dst *Store, id engine.SessionID, sb *rawBucket, why string) (string, error) {
	if sb == nil {
		return why, nil
	}
	err := dst.commit.update(func(btx *bbolt.Tx) error { return s.copy(btx, id, sb) })
	var lost errLost
	if errors.As(err, &lost) {
		return lost.reason, nil
	}
	return "", err
}

// scan reads every page of src for the sessions the walk did not copy
// (those in lost, and any it did not reach), adopting the snapshots and
// pinned workflows it finds, and copies each whose log it can assemble
// and verify. It returns the highest session id it found handed out.
func (s source) scan(src string, dst *Store, copied map[engine.SessionID]bool, lost map[engine.SessionID]string, rep *SalvageReport) (uint64, error) {
	sc, err := scanFile(src, copied)
	if err != nil {
		return 0, err
	}
	rep.DamagedPages, rep.MissingPages = sc.damaged, sc.missing
	s.adopt(sc.blobs)
	top := sc.counter
	for id := range sc.listed {
		top = max(top, uint64(id))
	}
	for _, id := range slices.Sorted(maps.Keys(sc.events)) {
		if _, damaged := lost[id]; s.listed() && !damaged {
			continue // not in the whole list of sessions: deleted
		}
		top = max(top, uint64(id))
		sb, why := sc.logOf(id)
		if sb != nil {
			if why, err = s.keep(dst, id, sb, ""); err != nil {
				return 0, err
			}
		}
		if earlier := lost[id]; why != "" && earlier != "" {
			why = earlier // the walk's reason names the damaged page
		} else if why != "" {
			why = "its pages were found, but " + why
		}
		record(copied, lost, id, why)
	}
	for id := range lost {
		top = max(top, uint64(id))
	}
	return top, nil
}

// record notes that session id was copied (why is "") or lost.
func record(copied map[engine.SessionID]bool, lost map[engine.SessionID]string, id engine.SessionID, why string) {
	if why == "" {
		copied[id] = true
		delete(lost, id)
		return
	}
	lost[id] = why
}

// adopt adds the content-addressed records a scan found where the walk
// found none whole: a digest names its content, so any copy that hashes
// to it is the record.
func (s source) adopt(blobs map[engine.Digest][]byte) {
	for d, v := range blobs {
		for _, b := range []*rawBucket{s.snapshots, s.workflows} {
			if old, ok := b.entries[string(d[:])]; !ok || engine.Sum(old) != d {
				b.entries[string(d[:])] = v
			}
		}
	}
}

// source is what the pages of a damaged file yielded.
type source struct {
	sessions             *rawBucket
	snapshots, workflows *rawBucket
	// counted says the sessions bucket's header, with the session-id
	// counter, was read from the root.
	counted bool
}

func sourceOf(root *rawBucket) source {
	pick := func(name []byte) *rawBucket {
		if root != nil && root.buckets[string(name)] != nil {
			return root.buckets[string(name)]
		}
		return &rawBucket{entries: map[string][]byte{}, buckets: map[string]*rawBucket{}, problems: []string{"not reached"}}
	}
	counted := root != nil && root.buckets[string(bucketSessions)] != nil
	return source{sessions: pick(bucketSessions), snapshots: pick(bucketSnapshots), workflows: pick(bucketWorkflows), counted: counted}
}

// listed reports whether the walk read the whole list of sessions.
func (s source) listed() bool { return len(s.sessions.problems) == 0 }

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
	top := s.sessions.seq
	for k := range s.sessions.buckets {
		if len(k) == 8 {
			top = max(top, binary.BigEndian.Uint64([]byte(k)))
		}
	}
	return top
}

// session is session id's bucket when all of it was read; else nil and
// why ("" when the walk did not find it).
func (s source) session(id engine.SessionID) (*rawBucket, string) {
	sb := s.sessions.buckets[string(sessionKey(id))]
	switch {
	case sb == nil:
		return nil, "" // never created, deleted, or not reached
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
	if err := markWritten(btx, sessionKey(id)); err != nil {
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
