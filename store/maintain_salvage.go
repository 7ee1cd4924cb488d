package store

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/store/pagefile"
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
	// Restored are the pinned workflows the file's tree did not hold
	// whole that salvage took from elsewhere, for the sessions copied.
	Restored []RestoredPin `json:"restored"`
	// Complete says the copy holds every session the file is known to
	// have held: none lost, none unreached, and the count known. Only
	// a complete copy is offered to replace the file.
	Complete bool `json:"complete"`
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
	// Needs are the pinned workflows its runs were started on that
	// neither the file nor the workflow files on disk hold: a file
	// defining one (the same id, compiling to the same hash) brought
	// back, a new salvage copies the session.
	Needs []Pin `json:"needs,omitempty"`
}

// errLost rolls back the copy of a session that does not verify.
type errLost struct {
	reason string
	needs  []Pin
}

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
//
// A pinned workflow the file lost is taken from any other copy in it
// (freed pages hold older versions of the page that held it) or, with
// o.Workflows, from the workflow files on disk when one compiles to the
// same hash. A file whose schema is newer than this build's is refused,
// as Open refuses it, and out is not left behind.
func Salvage(src, out string, o SalvageOptions) (SalvageReport, error) {
	rep := SalvageReport{Structure: []string{}, Salvaged: []engine.SessionID{}, Lost: []Lost{}, Restored: []RestoredPin{}, Reach: Reach{Count: CountExact}}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("store: salvage: %s already exists; name a new file", out)
	}
	root, problems, err := pagefile.Read(src, true)
	if err != nil {
		return rep, err
	}
	from := sourceOf(root, o)
	if v, ok := from.schema(); ok && v > SchemaVersion {
		return rep, newerSchema(src, v)
	}
	rep.Structure = append(rep.Structure, problems...)
	dst, err := Open(out, Options{})
	if err != nil {
		return rep, err
	}
	rep, err = salvageInto(src, dst, from, problems, rep)
	dst.Close()
	if errors.Is(err, ErrNewerSchema) {
		os.Remove(out) // the scan found the schema only after out was made
	}
	return rep, err
}

// salvageInto copies what the walk from the root reached, then, when
// the walk met damage, what the page scan finds.
func salvageInto(src string, dst *Store, from source, problems []string, rep SalvageReport) (SalvageReport, error) {
	c := &salvaged{copied: map[engine.SessionID]bool{}, lost: map[engine.SessionID]Lost{}, restored: map[engine.Digest]*RestoredPin{}}
	top := from.top()
	for n := uint64(1); n <= top; n++ {
		id := engine.SessionID(n)
		if sb, why := from.session(id); sb != nil || why != "" {
			if err := from.keep(dst, c, id, sb, Lost{Reason: why}); err != nil {
				return rep, err
			}
		}
	}
	if len(problems) > 0 {
		rep.Scanned = true
		var err error
		if top, err = from.scan(src, dst, c, &rep); err != nil {
			return rep, err
		}
		top = max(top, from.top())
	}
	rep.Salvaged = slices.Sorted(maps.Keys(c.copied))
	for _, id := range slices.Sorted(maps.Keys(c.lost)) {
		rep.Lost = append(rep.Lost, c.lost[id])
	}
	for _, r := range c.restored {
		rep.Restored = append(rep.Restored, *r)
	}
	slices.SortFunc(rep.Restored, func(a, b RestoredPin) int {
		return cmp.Or(cmp.Compare(a.WorkflowID, b.WorkflowID), bytes.Compare(a.WorkflowHash[:], b.WorkflowHash[:]))
	})
	rep.Count = from.count(top)
	if rep.Count != CountExact {
		rep.Unreached = max(0, int(top)-len(c.copied)-len(c.lost))
	}
	rep.Complete = len(rep.Lost) == 0 && rep.Unreached == 0 && rep.Count != CountUnknown
	return rep, dst.commit.update(func(btx *bbolt.Tx) error {
		return btx.Bucket(bucketSessions).SetSequence(top)
	})
}

// salvaged is what a salvage has copied and lost so far, and the pinned
// workflows it restored for the sessions copied.
type salvaged struct {
	copied   map[engine.SessionID]bool
	lost     map[engine.SessionID]Lost
	restored map[engine.Digest]*RestoredPin
}

// keep copies session id from sb (nil when it could not be read, with
// why) and records whether it was kept.
func (s source) keep(dst *Store, c *salvaged, id engine.SessionID, sb *pagefile.Bucket, why Lost) error {
	if sb != nil {
		var used []RestoredPin
		err := dst.commit.update(func(btx *bbolt.Tx) error {
			var err error
			used, err = s.copy(btx, id, sb)
			return err
		})
		var lost errLost
		switch {
		case errors.As(err, &lost):
			why = Lost{Reason: lost.reason, Needs: lost.needs}
		case err != nil:
			return err
		default:
			why = Lost{}
			c.use(used)
		}
	}
	c.record(id, why)
	return nil
}

// scan reads every page of src for the sessions the walk did not copy
// (those lost, and any it did not reach), adopting the snapshots and
// pinned workflows it finds, and copies each whose log it can assemble
// and verify. It returns the highest session id it found handed out.
func (s source) scan(src string, dst *Store, c *salvaged, rep *SalvageReport) (uint64, error) {
	sc, err := scanFile(src, c.copied)
	if err != nil {
		return 0, err
	}
	if _, known := s.schema(); !known && sc.schema > SchemaVersion {
		return 0, newerSchema(src, sc.schema)
	}
	rep.DamagedPages, rep.MissingPages = sc.damaged, sc.missing
	s.adopt(sc.blobs)
	top := sc.counter
	for id := range sc.listed {
		top = max(top, uint64(id))
	}
	for _, id := range slices.Sorted(maps.Keys(sc.events)) {
		earlier, damaged := c.lost[id]
		if s.listed() && !damaged {
			continue // not in the whole list of sessions: deleted
		}
		top = max(top, uint64(id))
		sb, why := sc.logOf(id)
		now := Lost{Reason: why}
		if sb != nil {
			if err := s.keep(dst, c, id, sb, Lost{}); err != nil {
				return 0, err
			}
			if c.copied[id] {
				continue
			}
			now = c.lost[id]
		}
		switch {
		case now.Needs != nil:
			c.record(id, now) // the pins it still needs
		case earlier.Reason != "" && (earlier.Needs == nil || sb == nil):
			c.record(id, earlier) // the walk's reason names the damaged page, or the pins it needs
		default:
			c.record(id, Lost{Reason: "its pages were found, but " + now.Reason})
		}
	}
	for id := range c.lost {
		top = max(top, uint64(id))
	}
	return top, nil
}

// record notes that session id was copied (why is zero) or lost.
func (c *salvaged) record(id engine.SessionID, why Lost) {
	if why.Reason == "" {
		c.copied[id] = true
		delete(c.lost, id)
		return
	}
	why.Session = id
	c.lost[id] = why
}

// use counts the pinned workflows a copied session took from elsewhere
// than the file's tree.
func (c *salvaged) use(pins []RestoredPin) {
	for _, p := range pins {
		r := c.restored[engine.Digest(p.WorkflowHash)]
		if r == nil {
			r = &p
			c.restored[engine.Digest(p.WorkflowHash)] = r
		}
		r.Sessions++
	}
}
