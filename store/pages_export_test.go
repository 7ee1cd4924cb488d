package store

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/store/pagefile"
)

// Page flags, for tests that damage a file at pages they find here.
const (
	BranchPage = pagefile.BranchPage
	LeafPage   = pagefile.LeafPage
)

// Pages reads the file at path with the store's own page reader: its
// page size, the root bucket's page (as its newest meta page names it),
// and each top-level bucket's root page (0 when inline).
func Pages(tb testing.TB, path string) (pageSize int, root uint64, buckets map[string]uint64) {
	tb.Helper()
	data, m := mapped(tb, path)
	p, flags, ok := pagefile.Page(data, m, m.Root)
	if !ok || flags != pagefile.LeafPage {
		tb.Fatalf("the root bucket's page %d is not one leaf", m.Root)
	}
	els, ok := pagefile.Elements(p)
	if !ok {
		tb.Fatalf("the root bucket's page %d does not parse", m.Root)
	}
	buckets = map[string]uint64{}
	for _, el := range els {
		if el.Bucket {
			buckets[string(el.Key)] = binary.LittleEndian.Uint64(el.Value)
		}
	}
	return m.PageSize, m.Root, buckets
}

// PageFlags is the type page id's header names.
func PageFlags(tb testing.TB, path string, id uint64) uint16 {
	tb.Helper()
	data, m := mapped(tb, path)
	_, flags, ok := pagefile.Page(data, m, id)
	if !ok {
		tb.Fatalf("page %d does not parse", id)
	}
	return flags
}

// ScannedHeads counts the head records a page scan of path finds for
// versions of session id's log (each a prefix of the next).
func ScannedHeads(tb testing.TB, path string, id engine.SessionID) int {
	tb.Helper()
	sc, err := scanFile(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var d engine.Digest
	n := 0
	for i := engine.EventIndex(1); len(sc.events[id][i]) > 0; i++ {
		d = event.Chain(d, sc.events[id][i][0])
		if _, ok := sc.heads[chainEntry{i, d}]; ok {
			n++
		}
	}
	return n
}

// mapped is the file at path and what its newest meta page says.
func mapped(tb testing.TB, path string) ([]byte, pagefile.Meta) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := pagefile.ReadMeta(b)
	if err != nil {
		tb.Fatal(err)
	}
	return b, m
}

// ScannedBlob reports whether a page scan of path finds a snapshot or
// pinned workflow whose content hashes to d, on any page, in use or
// freed.
func ScannedBlob(tb testing.TB, path string, d engine.Digest) bool {
	tb.Helper()
	sc, err := scanFile(path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	_, ok := sc.blobs[d]
	return ok
}
