// Package pagefile reads a bbolt file's pages (format version 2) without
// bbolt, for a file that may be damaged: bbolt trusts its pages, so on a
// damaged file it panics, faults outside the mapped file, or follows a
// cycle of pages forever. This reader checks every bound first, visits
// each page once and reports damage instead of following it. It knows
// the format, not what the store keeps in it.
package pagefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"syscall"
)

// The bbolt file format (version 2).
const (
	HeaderSize   = 16 // a page's header: id u64, flags u16, count u16, overflow u32
	elementSize  = 16 // branch: pos, ksize u32, pgid u64; leaf: flags, pos, ksize, vsize u32
	BranchPage   = 0x01
	LeafPage     = 0x02
	FreelistPage = 0x10
	bucketLeaf   = 0x01
	boltMagic    = 0xED0CDAED
	boltVersion  = 2
	maxDepth     = 64
	NoFreelist   = ^uint64(0) // the meta names no free list: bbolt rebuilds it
)

// ErrNotBolt means neither meta page is valid: the file is no database
// (or lost both of its roots, which nothing can salvage).
var ErrNotBolt = errors.New("invalid database: neither of its meta pages is valid; is it a WorkRail database?")

// Bucket is a bucket as found in the file: its sequence, its plain
// entries and its nested buckets (kept only when extracting), and the
// damage found in the pages of this bucket's own tree.
type Bucket struct {
	Seq      uint64
	Entries  map[string][]byte
	Buckets  map[string]*Bucket
	Problems []string
}

// Damaged reports whether b or anything below it is damaged.
func (b *Bucket) Damaged() bool {
	if len(b.Problems) > 0 {
		return true
	}
	for _, c := range b.Buckets {
		if c.Damaged() {
			return true
		}
	}
	return false
}

// pageReader walks one mapped file.
type pageReader struct {
	data     []byte
	pageSize int
	high     uint64   // pages in use are below it
	freelist uint64   // the free list's page, or NoFreelist
	seen     []uint64 // a bit per page: reached from the root
	extract  bool
	problems []string // every problem, with where it is
}

// Read maps the file at path and walks every bucket from its newest
// valid meta page. With extract, it keeps the entries of every bucket it
// could read. Damage is reported, never followed; err is for a file that
// cannot be read at all.
func Read(path string, extract bool) (*Bucket, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReadFile(f, extract)
}

// ReadFile is Read of an open file (one the caller holds a lock on).
func ReadFile(f *os.File, extract bool) (*Bucket, []string, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if fi.Size() < 2*HeaderSize+64 {
		return nil, nil, ErrNotBolt
	}
	// Populated: the walk reads most pages, and one fault per page costs
	// more than mapping them all at once.
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil, nil, fmt.Errorf("store: map %s: %w", f.Name(), err)
	}
	defer syscall.Munmap(data)
	r := &pageReader{data: data, extract: extract}
	rootHdr, err := r.meta()
	if err != nil {
		return nil, nil, err
	}
	r.seen = make([]uint64, (r.high+63)/64)
	root := r.bucket(rootHdr, &loc{text: "root"})
	r.checkFreelist()
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
		return nil, ErrNotBolt
	case !ok0 || (ok1 && binary.LittleEndian.Uint64(m1[48:]) > binary.LittleEndian.Uint64(m0[48:])):
		best = m1
	}
	r.pageSize = int(binary.LittleEndian.Uint32(best[8:]))
	r.freelist = binary.LittleEndian.Uint64(best[32:])
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
	if at+HeaderSize+size > len(r.data) {
		return nil, false
	}
	m := r.data[at+HeaderSize : at+HeaderSize+size]
	h := fnv.New64a()
	h.Write(m[:56])
	return m, binary.LittleEndian.Uint32(m) == boltMagic && binary.LittleEndian.Uint32(m[4:]) == boltVersion &&
		binary.LittleEndian.Uint64(m[56:]) == h.Sum64()
}

// bucket reads the bucket whose 16-byte header (root page id, sequence),
// followed by an inline page when the root is 0, is hdr.
func (r *pageReader) bucket(hdr []byte, where *loc) *Bucket {
	b := &Bucket{}
	if r.extract {
		b.Entries, b.Buckets = map[string][]byte{}, map[string]*Bucket{}
	}
	if len(hdr) < 16 {
		r.damage(b, where, "bucket header is %d bytes", len(hdr))
		return b
	}
	b.Seq = binary.LittleEndian.Uint64(hdr[8:])
	var last []byte
	if root := binary.LittleEndian.Uint64(hdr); root != 0 {
		r.page(b, root, where, 0, &last, bounds{})
	} else {
		r.elements(b, hdr[16:], LeafPage, &loc{parent: where, text: " (inline)"}, 0, &last, bounds{})
	}
	return b
}

// damage records a problem found at where: in the file's problems with
// the whole path to it, in the bucket's naming only the page (a
// session's reason, in a report that lists the file's problems too).
func (r *pageReader) damage(b *Bucket, where *loc, format string, args ...any) {
	p := fmt.Sprintf(format, args...)
	b.Problems = append(b.Problems, where.short()+": "+p)
	r.problems = append(r.problems, where.String()+": "+p)
}

// bounds are the keys a page's subtree must lie in, as its parent's
// branch elements say: lo inclusive, hi exclusive; nil for no bound.
type bounds struct{ lo, hi []byte }

func (k bounds) admit(key []byte) bool {
	return (k.lo == nil || bytes.Compare(key, k.lo) >= 0) && (k.hi == nil || bytes.Compare(key, k.hi) < 0)
}

// page reads page id and everything below it into b.
func (r *pageReader) page(b *Bucket, id uint64, parent *loc, depth int, last *[]byte, in bounds) {
	where := &loc{parent: parent, page: id}
	switch {
	case depth > maxDepth:
		r.damage(b, where, "the tree is deeper than %d", maxDepth)
		return
	case id < 2 || id >= r.high:
		r.damage(b, where, "outside the pages in use (2 to %d)", r.high-1)
		return
	case r.reached(id):
		r.damage(b, where, "reached twice (a cycle, or two parents)")
		return
	}
	off := int(id) * r.pageSize
	if off+r.pageSize > len(r.data) {
		r.damage(b, where, "past the end of the file")
		return
	}
	hdr := r.data[off : off+HeaderSize]
	flags, overflow := binary.LittleEndian.Uint16(hdr[8:]), uint64(binary.LittleEndian.Uint32(hdr[12:]))
	end := off + int(1+overflow)*r.pageSize
	if binary.LittleEndian.Uint64(hdr) != id || id+overflow >= r.high || end > len(r.data) || end < off {
		r.damage(b, where, "header names page %d with %d overflow pages", binary.LittleEndian.Uint64(hdr), overflow)
		return
	}
	for i := uint64(0); i <= overflow; i++ {
		r.mark(id + i)
	}
	if flags != BranchPage && flags != LeafPage {
		r.damage(b, where, "unexpected page type %#x", flags)
		return
	}
	r.elements(b, r.data[off:end], flags, where, depth, last, in)
}

// elements reads the elements of a page (its bytes, header included).
func (r *pageReader) elements(b *Bucket, p []byte, flags uint16, where *loc, depth int, last *[]byte, in bounds) {
	if len(p) < HeaderSize {
		r.damage(b, where, "shorter than a page header")
		return
	}
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if HeaderSize+count*elementSize > len(p) {
		r.damage(b, where, "%d elements do not fit", count)
		return
	}
	keys := make([][]byte, count)
	for i := 0; i < count; i++ {
		e := HeaderSize + i*elementSize
		el := p[e : e+elementSize]
		var pos, ksize, vsize int
		if flags == BranchPage {
			pos, ksize = int(binary.LittleEndian.Uint32(el)), int(binary.LittleEndian.Uint32(el[4:]))
		} else {
			pos, ksize, vsize = int(binary.LittleEndian.Uint32(el[4:])), int(binary.LittleEndian.Uint32(el[8:])), int(binary.LittleEndian.Uint32(el[12:]))
		}
		start := e + pos
		if pos < 0 || ksize < 0 || vsize < 0 || start+ksize+vsize > len(p) || start+ksize+vsize < start {
			r.damage(b, where, "element %d points outside the page", i)
			return
		}
		keys[i] = p[start : start+ksize]
		if !in.admit(keys[i]) || (i > 0 && bytes.Compare(keys[i-1], keys[i]) >= 0) {
			r.damage(b, where, "key %x is out of order", keys[i])
			return
		}
	}
	for i := 0; i < count; i++ {
		e := HeaderSize + i*elementSize
		el := p[e : e+elementSize]
		key := keys[i]
		if flags == BranchPage {
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
			r.damage(b, where, "key %x is out of order", key)
			return
		}
		*last = key
		value := p[start+len(key) : start+len(key)+vsize]
		if binary.LittleEndian.Uint32(el)&bucketLeaf != 0 {
			child := r.bucket(value, &loc{parent: where, bucket: key})
			if r.extract {
				b.Buckets[string(key)] = child
			}
			continue
		}
		if r.extract {
			b.Entries[string(key)] = bytes.Clone(value)
		}
	}
}

// checkFreelist checks the free list the meta page names, after the walk
// from the root has marked every page in use: bbolt trusts it on open and
// hands its pages out to the next writes, so a free page that is also in
// use would be overwritten. The damage is the file's, not any bucket's:
// salvage, which copies buckets into a new file, is not hindered by it.
func (r *pageReader) checkFreelist() {
	if r.freelist == NoFreelist {
		return
	}
	file := &Bucket{}
	where := &loc{text: fmt.Sprintf("free list (page %d)", r.freelist)}
	if r.freelist < r.high && r.reached(r.freelist) {
		r.damage(file, where, "its page is outside the pages in use or in use by a bucket")
		return
	}
	ids, overflow, problem := r.freeList()
	if problem != "" {
		r.damage(file, where, "%s", problem)
		return
	}
	for i := uint64(0); i <= overflow; i++ {
		r.mark(r.freelist + i)
	}
	for _, free := range ids {
		if free < 2 || free >= r.high || r.reached(free) {
			r.damage(file, where, "page %d is listed as free but is outside the pages in use, in use, or listed twice", free)
			return
		}
		r.mark(free)
	}
}

// freeList reads the free list the meta page names: the free pages and
// the list's own overflow pages, or what is wrong with it.
func (r *pageReader) freeList() (ids []uint64, overflow uint64, problem string) {
	id := r.freelist
	off := int(id) * r.pageSize
	if id < 2 || id >= r.high || off+r.pageSize > len(r.data) {
		return nil, 0, "its page is outside the pages in use or in use by a bucket"
	}
	hdr := r.data[off : off+HeaderSize]
	flags, overflow := binary.LittleEndian.Uint16(hdr[8:]), uint64(binary.LittleEndian.Uint32(hdr[12:]))
	end := off + int(1+overflow)*r.pageSize
	if binary.LittleEndian.Uint64(hdr) != id || flags != FreelistPage || id+overflow >= r.high || end > len(r.data) || end < off {
		return nil, 0, "its page header does not describe a free list"
	}
	raw, count := r.data[off+HeaderSize:end], uint64(binary.LittleEndian.Uint16(hdr[10:]))
	if count == 0xFFFF && len(raw) >= 8 {
		count, raw = binary.LittleEndian.Uint64(raw), raw[8:]
	}
	if count > uint64(len(raw)/8) {
		return nil, 0, fmt.Sprintf("%d free pages do not fit in it", count)
	}
	ids = make([]uint64, count)
	for i := range ids {
		ids[i] = binary.LittleEndian.Uint64(raw[i*8:])
	}
	return ids, overflow, ""
}

// loc is where in the file a page or bucket was reached from, spelled
// out only when damage is reported there: most pages are intact.
type loc struct {
	parent *loc
	text   string // a fixed label ("root", " (inline)")
	page   uint64 // or a page
	bucket []byte // or a nested bucket's key
}

func (l *loc) String() string {
	if l.parent == nil {
		return l.last()
	}
	return l.parent.String() + l.last()
}

// short names l by its page or bucket alone.
func (l *loc) short() string {
	s := l.last()
	if l.text != "" && l.parent != nil { // " (inline)"
		s = l.parent.last() + s
	}
	return strings.TrimPrefix(s, ": ")
}

// last is the last step of the path to l.
func (l *loc) last() string {
	switch {
	case l.text != "":
		return l.text
	case l.bucket != nil:
		return fmt.Sprintf(": bucket %x", l.bucket)
	}
	return fmt.Sprintf(": page %d", l.page)
}

func (r *pageReader) mark(id uint64)         { r.seen[id/64] |= 1 << (id % 64) }
func (r *pageReader) reached(id uint64) bool { return r.seen[id/64]&(1<<(id%64)) != 0 }
