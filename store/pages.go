package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"syscall"
)

// The bbolt file format (version 2), read here without bbolt: bbolt
// trusts its pages, so on a damaged file it panics, faults outside the
// mapped file, or follows a cycle of pages forever. This reader checks
// every bound first and visits each page once.
const (
	pageHeaderSize = 16 // id u64, flags u16, count u16, overflow u32
	elementSize    = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	branchPage     = 0x01
	leafPage       = 0x02
	bucketLeaf     = 0x01
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	maxDepth       = 64
)

// errNotBolt means neither meta page is valid: the file is no database
// (or lost both of its roots, which nothing can salvage).
var errNotBolt = errors.New("invalid database: neither of its meta pages is valid; is it a WorkRail database?")

// rawBucket is a bucket as found in the file: its plain entries and its
// nested buckets (kept only when extracting), and the damage found in the
// pages of this bucket's own tree.
type rawBucket struct {
	seq      uint64
	entries  map[string][]byte
	buckets  map[string]*rawBucket
	problems []string
}

// damaged reports whether b or anything below it is damaged.
func (b *rawBucket) damaged() bool {
	if len(b.problems) > 0 {
		return true
	}
	for _, c := range b.buckets {
		if c.damaged() {
			return true
		}
	}
	return false
}

// pageReader walks one mapped file.
type pageReader struct {
	data     []byte
	pageSize int
	high     uint64 // pages in use are below it
	seen     map[uint64]bool
	extract  bool
	problems []string // every problem, with where it is
}

// readPages maps the file at path and walks every bucket from its newest
// valid meta page. With extract, it keeps the entries of every bucket it
// could read. Damage is reported, never followed; err is for a file that
// cannot be read at all.
func readPages(path string, extract bool) (*rawBucket, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readFile(f, extract)
}

func readFile(f *os.File, extract bool) (*rawBucket, []string, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() < 2*pageHeaderSize+64 {
		return nil, nil, errNotBolt
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("store: map %s: %w", f.Name(), err)
	}
	defer syscall.Munmap(data)
	r := &pageReader{data: data, seen: map[uint64]bool{}, extract: extract}
	rootHdr, err := r.meta()
	if err != nil {
		return nil, nil, err
	}
	root := r.bucket(rootHdr, "root")
	return root, r.problems, nil
}

// meta finds the newest valid meta page and returns its root bucket
// header. Meta page 0 names the page size, which places meta page 1; when
// page 0 is damaged, page 1 is looked for where the OS page size puts it,
// as bbolt does.
func (r *pageReader) meta() ([]byte, error) {
	m0, ok0 := r.validMeta(0)
	at := os.Getpagesize()
	if ok0 {
		at = int(binary.LittleEndian.Uint32(m0[8:]))
	}
	m1, ok1 := r.validMeta(at)
	best := m0
	switch {
	case !ok0 && !ok1:
		return nil, errNotBolt
	case !ok0 || (ok1 && binary.LittleEndian.Uint64(m1[48:]) > binary.LittleEndian.Uint64(m0[48:])):
		best = m1
	}
	r.pageSize = int(binary.LittleEndian.Uint32(best[8:]))
	r.high = binary.LittleEndian.Uint64(best[40:])
	if r.pageSize < 512 || r.pageSize > 1<<16 {
		return nil, fmt.Errorf("meta page names a page size of %d bytes", r.pageSize)
	}
	return best[16:32], nil
}

// validMeta is the meta at byte offset at, if its magic, version and
// checksum hold: magic u32, version u32, pageSize u32, flags u32,
// root bucket (16), freelist u64, pgid u64, txid u64, checksum u64.
func (r *pageReader) validMeta(at int) ([]byte, bool) {
	const size = 64
	if at+pageHeaderSize+size > len(r.data) {
		return nil, false
	}
	m := r.data[at+pageHeaderSize : at+pageHeaderSize+size]
	h := fnv.New64a()
	h.Write(m[:56])
	return m, binary.LittleEndian.Uint32(m) == boltMagic && binary.LittleEndian.Uint32(m[4:]) == boltVersion &&
		binary.LittleEndian.Uint64(m[56:]) == h.Sum64()
}

// bucket reads the bucket whose 16-byte header (root page id, sequence),
// followed by an inline page when the root is 0, is hdr.
func (r *pageReader) bucket(hdr []byte, where string) *rawBucket {
	b := &rawBucket{}
	if r.extract {
		b.entries, b.buckets = map[string][]byte{}, map[string]*rawBucket{}
	}
	if len(hdr) < 16 {
		r.damage(b, "%s: bucket header is %d bytes", where, len(hdr))
		return b
	}
	b.seq = binary.LittleEndian.Uint64(hdr[8:])
	var last []byte
	if root := binary.LittleEndian.Uint64(hdr); root != 0 {
		r.page(b, root, where, 0, &last, bounds{})
	} else {
		r.elements(b, hdr[16:], leafPage, where+" (inline)", 0, &last, bounds{})
	}
	return b
}

func (r *pageReader) damage(b *rawBucket, format string, args ...any) {
	p := fmt.Sprintf(format, args...)
	b.problems = append(b.problems, p)
	r.problems = append(r.problems, p)
}

// bounds are the keys a page's subtree must lie in, as its parent's
// branch elements say: lo inclusive, hi exclusive; nil for no bound.
type bounds struct{ lo, hi []byte }

func (k bounds) admit(key []byte) bool {
	return (k.lo == nil || bytes.Compare(key, k.lo) >= 0) && (k.hi == nil || bytes.Compare(key, k.hi) < 0)
}

// page reads page id and everything below it into b.
func (r *pageReader) page(b *rawBucket, id uint64, where string, depth int, last *[]byte, in bounds) {
	where = fmt.Sprintf("%s: page %d", where, id)
	switch {
	case depth > maxDepth:
		r.damage(b, "%s: the tree is deeper than %d", where, maxDepth)
		return
	case id < 2 || id >= r.high:
		r.damage(b, "%s: outside the pages in use (2 to %d)", where, r.high-1)
		return
	case r.seen[id]:
		r.damage(b, "%s: reached twice (a cycle, or two parents)", where)
		return
	}
	off := int(id) * r.pageSize
	if off+r.pageSize > len(r.data) {
		r.damage(b, "%s: past the end of the file", where)
		return
	}
	hdr := r.data[off : off+pageHeaderSize]
	flags, overflow := binary.LittleEndian.Uint16(hdr[8:]), uint64(binary.LittleEndian.Uint32(hdr[12:]))
	end := off + int(1+overflow)*r.pageSize
	if binary.LittleEndian.Uint64(hdr) != id || id+overflow >= r.high || end > len(r.data) || end < off {
		r.damage(b, "%s: header names page %d with %d overflow pages", where, binary.LittleEndian.Uint64(hdr), overflow)
		return
	}
	for i := uint64(0); i <= overflow; i++ {
		r.seen[id+i] = true
	}
	if flags != branchPage && flags != leafPage {
		r.damage(b, "%s: unexpected page type %#x", where, flags)
		return
	}
	r.elements(b, r.data[off:end], flags, where, depth, last, in)
}

// elements reads the elements of a page (its bytes, header included).
func (r *pageReader) elements(b *rawBucket, p []byte, flags uint16, where string, depth int, last *[]byte, in bounds) {
	if len(p) < pageHeaderSize {
		r.damage(b, "%s: shorter than a page header", where)
		return
	}
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > len(p) {
		r.damage(b, "%s: %d elements do not fit", where, count)
		return
	}
	keys := make([][]byte, count)
	for i := 0; i < count; i++ {
		e := pageHeaderSize + i*elementSize
		el := p[e : e+elementSize]
		var pos, ksize, vsize int
		if flags == branchPage {
			pos, ksize = int(binary.LittleEndian.Uint32(el)), int(binary.LittleEndian.Uint32(el[4:]))
		} else {
			pos, ksize, vsize = int(binary.LittleEndian.Uint32(el[4:])), int(binary.LittleEndian.Uint32(el[8:])), int(binary.LittleEndian.Uint32(el[12:]))
		}
		start := e + pos
		if pos < 0 || ksize < 0 || vsize < 0 || start+ksize+vsize > len(p) || start+ksize+vsize < start {
			r.damage(b, "%s: element %d points outside the page", where, i)
			return
		}
		keys[i] = p[start : start+ksize]
		if !in.admit(keys[i]) || (i > 0 && bytes.Compare(keys[i-1], keys[i]) >= 0) {
			r.damage(b, "%s: key %x is out of order", where, keys[i])
			return
		}
	}
	for i := 0; i < count; i++ {
		e := pageHeaderSize + i*elementSize
		el := p[e : e+elementSize]
		key := keys[i]
		if flags == branchPage {
			sub := bounds{lo: key, hi: in.hi}
			if i+1 < count {
				sub.hi = keys[i+1]
			}
			r.page(b, binary.LittleEndian.Uint64(el[8:]), where, depth+1, last, sub)
			continue
		}
		start := e + int(binary.LittleEndian.Uint32(el[4:]))
		vsize := int(binary.LittleEndian.Uint32(el[12:]))
		if *last != nil && bytes.Compare(*last, key) >= 0 {
			r.damage(b, "%s: key %x is out of order", where, key)
			return
		}
		*last = key
		value := p[start+len(key) : start+len(key)+vsize]
		if binary.LittleEndian.Uint32(el)&bucketLeaf != 0 {
			child := r.bucket(value, fmt.Sprintf("%s: bucket %x", where, key))
			if r.extract {
				b.buckets[string(key)] = child
			}
			continue
		}
		if r.extract {
			b.entries[string(key)] = bytes.Clone(value)
		}
	}
}
