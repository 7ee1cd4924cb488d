package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/store/pagefile"
)

// pageScan is what reading every page of a file, whatever the tree above
// them says, found: the pieces of session logs, content-addressed records
// and the session-id counter, each still to be verified. bbolt is
// copy-on-write, so freed pages may hold older versions of a session's
// pages: every piece is kept as a candidate and a log is assembled only
// from pieces its digest chain proves belong together.
type pageScan struct {
	events map[engine.SessionID]map[engine.EventIndex][][]byte
	chain  map[chainEntry]bool       // every chain digest found
	heads  map[chainEntry]bool       // every head record found: true if one is on a page in use
	blobs  map[engine.Digest][]byte  // snapshots and pinned workflows whose content hashes to their key
	listed map[engine.SessionID]bool // ids found as keys of the sessions bucket
	// counter is the highest session-id counter found on a copy of the
	// root bucket's page; 0 when none was found.
	counter uint64
	// schema is the highest schema version found in a copy of the meta
	// bucket (inline in the root bucket's page); 0 when none was found.
	schema uint64
	// freeKnown says the free list was read, so a head record on a free
	// page is known to be an older version (or a deleted session's).
	freeKnown bool
	damaged   int // pages in use whose header or elements do not parse
	missing   int // pages in use past the end of the file
}

// chainEntry is an event index and the chain digest up to it.
type chainEntry struct {
	i engine.EventIndex
	d engine.Digest
}

// scanFile reads every page of the file at path below the high-water mark
// its meta page names (pages above it were never committed). Sessions in
// skip (already copied from the tree) are not gathered.
func scanFile(path string, skip map[engine.SessionID]bool) (*pageScan, error) {
	sc := &pageScan{events: map[engine.SessionID]map[engine.EventIndex][][]byte{}, chain: map[chainEntry]bool{},
		heads: map[chainEntry]bool{}, blobs: map[engine.Digest][]byte{}, listed: map[engine.SessionID]bool{}}
	sum, err := pagefile.Scan(path, func(p []byte, inUse bool) bool { return sc.leaf(p, inUse, skip, 0) })
	if err != nil {
		return nil, err
	}
	sc.freeKnown, sc.damaged, sc.missing = sum.FreeKnown, sum.Damaged, sum.Missing
	return sc, nil
}

// leaf gathers what leaf page p holds; inUse says the page is not on the
// free list. Inline buckets (a nested bucket's page inside its header's
// value) are read as pages of their own. It reports whether p parsed.
func (sc *pageScan) leaf(p []byte, inUse bool, skip map[engine.SessionID]bool, depth int) bool {
	els, ok := pagefile.Elements(p)
	if !ok {
		return false
	}
	names, ids := map[string]bool{}, true
	for _, el := range els {
		names[string(el.Key)] = el.Bucket
		ids = ids && el.Bucket && len(el.Key) == 8
	}
	for _, el := range els {
		switch {
		case el.Bucket:
			sc.nested(el, names, ids, inUse, skip, depth)
		case len(el.Key) == 8 && len(el.Value) == len(engine.Digest{}):
			sc.chain[chainEntry{engine.EventIndex(binary.BigEndian.Uint64(el.Key)), engine.Digest(el.Value)}] = true
		case len(el.Key) == 8 && len(el.Value) > 0 && el.Value[0] == '{':
			sc.event(el, skip)
		case len(el.Key) == len(engine.Digest{}) && engine.Sum(el.Value) == engine.Digest(el.Key):
			sc.blobs[engine.Digest(el.Key)] = bytes.Clone(el.Value)
		case bytes.Equal(el.Key, keyHead) && len(el.Value) == 8+len(engine.Digest{}) && names[string(bucketEvents)] && names[string(bucketChain)]:
			h := chainEntry{engine.EventIndex(binary.BigEndian.Uint64(el.Value)), engine.Digest(el.Value[8:])}
			sc.heads[h] = sc.heads[h] || inUse
		}
	}
	return true
}

// nested gathers what a nested bucket's header says: a session id (a key
// of the sessions bucket, whose page holds only such keys), the
// session-id counter (the sessions bucket's sequence, on the root
// bucket's page), or an inline bucket's page.
func (sc *pageScan) nested(el pagefile.Element, siblings map[string]bool, ids, inUse bool, skip map[engine.SessionID]bool, depth int) {
	if len(el.Value) < 16 {
		return
	}
	root := siblings[string(bucketSessions)] && siblings[string(bucketSnapshots)] && siblings[string(bucketMeta)]
	switch {
	case bytes.Equal(el.Key, bucketSessions) && root:
		sc.counter = max(sc.counter, binary.LittleEndian.Uint64(el.Value[8:]))
	case bytes.Equal(el.Key, bucketMeta) && root:
		sc.schema = max(sc.schema, metaSchema(el.Value))
	case ids:
		if id := engine.SessionID(binary.BigEndian.Uint64(el.Key)); id != 0 {
			sc.listed[id] = true
		}
	}
	if p := pagefile.InlinePage(el.Value); p != nil && depth < 2 {
		sc.leaf(p, inUse, skip, depth+1)
	}
}

// metaSchema is the schema version an inline meta bucket (its header,
// then its page) holds, or 0.
func metaSchema(hdr []byte) uint64 {
	p := pagefile.InlinePage(hdr)
	if p == nil {
		return 0 // not inline: the meta bucket never outgrows its parent's page
	}
	els, _ := pagefile.Elements(p)
	for _, el := range els {
		if bytes.Equal(el.Key, keySchema) && len(el.Value) == 8 {
			return binary.BigEndian.Uint64(el.Value)
		}
	}
	return 0
}

// event keeps a candidate for the event a leaf element holds, if it
// decodes as the event its key numbers.
func (sc *pageScan) event(el pagefile.Element, skip map[engine.SessionID]bool) {
	e, err := event.Decode(el.Value)
	if err != nil || uint64(e.Index) != binary.BigEndian.Uint64(el.Key) || e.Session == 0 || skip[e.Session] {
		return
	}
	byIndex := sc.events[e.Session]
	if byIndex == nil {
		byIndex = map[engine.EventIndex][][]byte{}
		sc.events[e.Session] = byIndex
	}
	for _, v := range byIndex[e.Index] {
		if bytes.Equal(v, el.Value) {
			return
		}
	}
	byIndex[e.Index] = append(byIndex[e.Index], bytes.Clone(el.Value))
}

// logOf assembles session id's log from the scanned pieces: events 1..n,
// each one's digest found on a chain page, ending where a head record
// names it (see versions). A log is refused rather than rolled back: one
// whose head is only on freed pages (an older version, or a deleted
// session), and, when the free list is unknown, one that verified events
// continue past (its newest head record is lost).
func (sc *pageScan) logOf(id engine.SessionID) (*pagefile.Bucket, string) {
	v := sc.versions(id)
	best, n := v.inUse, v.inUseN
	if !sc.freeKnown {
		best, n = v.any, v.anyN
	}
	switch {
	case v.reach == 0 && len(sc.events[id][1]) == 0:
		return nil, "its first event was not found"
	case v.reach == 0:
		return nil, "its first event does not match any chain digest found"
	case best == nil && v.any != nil:
		return nil, fmt.Sprintf("only a version on freed pages was found (%d events): the session was deleted, or its newest pages are damaged", v.anyN)
	case best == nil:
		return nil, fmt.Sprintf("events 1 to %d verify, but no head record names any of them: its newest pages are damaged", v.reach)
	case !sc.freeKnown && n < v.reach:
		return nil, fmt.Sprintf("events 1 to %d verify, but the newest head record found names event %d: its newest pages are damaged", v.reach, n)
	}
	b := &pagefile.Bucket{Entries: map[string][]byte{string(keyHead): append(u64(uint64(n)), best.d[:]...)}, Buckets: map[string]*pagefile.Bucket{}}
	evs, chain := &pagefile.Bucket{Entries: map[string][]byte{}}, &pagefile.Bucket{Entries: map[string][]byte{}}
	for l, i := best, n; l.prev != nil; l, i = l.prev, i-1 {
		evs.Entries[string(u64(uint64(i)))] = l.v
		chain.Entries[string(u64(uint64(i)))] = bytes.Clone(l.d[:])
	}
	b.Buckets[string(bucketEvents)], b.Buckets[string(bucketChain)] = evs, chain
	return b, ""
}

// link is one event of a version of a log, and the chain digest up to it.
type link struct {
	prev *link
	d    engine.Digest
	v    []byte
}

// logVersions are the versions of one session's log the scanned pieces
// hold: the longest whose head record is on a page in use, the longest
// whose head record is anywhere, and how far any version verifies.
type logVersions struct {
	inUse, any   *link
	inUseN, anyN engine.EventIndex
	reach        engine.EventIndex
}

// versions follows every version of session id's log that its chain
// digests verify, event by event. bbolt is copy-on-write, so older
// versions are prefixes of newer ones and share their bytes; different
// bytes for one event arise only from damage or an unfinished write.
// Among versions of equal length the first in byte order wins.
func (sc *pageScan) versions(id engine.SessionID) logVersions {
	var v logVersions
	frontier := []*link{{}}
	for i := engine.EventIndex(1); len(frontier) > 0; i++ {
		cands := slices.Clone(sc.events[id][i])
		slices.SortFunc(cands, bytes.Compare)
		// Versions that reach the same digest hold the same events, so
		// each digest is followed once: no more versions than chain
		// digests found for index i.
		var next []*link
		seen := map[engine.Digest]bool{}
		for _, l := range frontier {
			for _, b := range cands {
				d := event.Chain(l.d, b)
				if !sc.chain[chainEntry{i, d}] || seen[d] {
					continue
				}
				seen[d] = true
				ext := &link{prev: l, d: d, v: b}
				next = append(next, ext)
				inUse, ok := sc.heads[chainEntry{i, d}]
				if ok && i > v.anyN {
					v.any, v.anyN = ext, i
				}
				if inUse && i > v.inUseN {
					v.inUse, v.inUseN = ext, i
				}
			}
		}
		if len(next) > 0 {
			v.reach = i
		}
		frontier = next
	}
	return v
}
