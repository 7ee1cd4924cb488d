package pagefile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
)

// Summary is what a scan of every page found wrong with the pages
// themselves, and whether the free list could be read.
type Summary struct {
	// FreeKnown says the free list was read, so a page not on it is in
	// use (and one on it holds an older version of something, or nothing).
	FreeKnown bool
	Damaged   int // pages in use whose header or elements do not parse
	Missing   int // pages in use past the end of the file
}

// Scan reads every page of the file at path below the high-water mark
// its meta page names (pages above it were never committed), whatever
// the tree above them says, and hands each leaf page (its bytes, header
// included) to visit, with whether it is in use (not on the free list).
// visit reports whether the page parsed; a page that did not is counted
// as damaged.
func Scan(path string, visit func(page []byte, inUse bool) bool) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Summary{}, err
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return Summary{}, fmt.Errorf("store: map %s: %w", path, err)
	}
	defer syscall.Munmap(data)
	r := &pageReader{data: data}
	if _, err := r.meta(); err != nil {
		return Summary{}, err
	}
	var sum Summary
	free, known := r.freePages()
	sum.FreeKnown = known
	continued := map[uint64]bool{} // overflow pages a page's header names as its own
	for id := uint64(2); id < r.high; id++ {
		if int(id+1)*r.pageSize > len(data) {
			sum.Missing = int(r.high - id)
			break
		}
		p, flags, overflow, ok := r.scanPage(id)
		for i := uint64(1); ok && i <= overflow; i++ {
			continued[id+i] = true
		}
		switch {
		case !ok && !continued[id]:
			sum.Damaged++
		case ok && flags == LeafPage && !visit(p, !free[id]):
			sum.Damaged++
		}
	}
	return sum, nil
}

// scanPage is page id's bytes (with its overflow pages), type and
// overflow count, if its header names it, a known type, and pages inside
// the file.
func (r *pageReader) scanPage(id uint64) ([]byte, uint16, uint64, bool) {
	off := int(id) * r.pageSize
	if off < 0 || off+HeaderSize > len(r.data) {
		return nil, 0, 0, false
	}
	hdr := r.data[off : off+HeaderSize]
	flags, overflow := binary.LittleEndian.Uint16(hdr[8:]), uint64(binary.LittleEndian.Uint32(hdr[12:]))
	end := off + int(1+overflow)*r.pageSize
	known := flags == LeafPage || flags == BranchPage || flags == FreelistPage
	if binary.LittleEndian.Uint64(hdr) != id || !known || id+overflow >= r.high || end > len(r.data) || end < off {
		return nil, 0, 0, false
	}
	return r.data[off:end], flags, overflow, true
}

// freePages are the pages the free list names; known is false when there
// is none or it does not parse.
func (r *pageReader) freePages() (free map[uint64]bool, known bool) {
	if r.freelist == NoFreelist {
		return nil, false
	}
	ids, _, problem := r.freeList()
	if problem != "" {
		return nil, false
	}
	free = make(map[uint64]bool, len(ids))
	for _, id := range ids {
		free[id] = true
	}
	return free, true
}

// Element is one key and value of a leaf page; Bucket marks a nested
// bucket's header (and inline page) as the value.
type Element struct {
	Bucket     bool
	Key, Value []byte
}

// InlinePage is the page of an inline bucket whose header (root page
// id, sequence) is hdr, or nil when the bucket has a page of its own.
func InlinePage(hdr []byte) []byte {
	if len(hdr) < 16 || binary.LittleEndian.Uint64(hdr) != 0 {
		return nil
	}
	return hdr[16:]
}

// Elements reads the elements of leaf page p (its header included),
// checking that each lies inside p and that keys ascend.
func Elements(p []byte) ([]Element, bool) {
	if len(p) < HeaderSize {
		return nil, false
	}
	count := int(binary.LittleEndian.Uint16(p[10:]))
	if HeaderSize+count*elementSize > len(p) {
		return nil, false
	}
	out := make([]Element, count)
	for i := range out {
		e := HeaderSize + i*elementSize
		el := p[e : e+elementSize]
		pos, ksize, vsize := int(binary.LittleEndian.Uint32(el[4:])), int(binary.LittleEndian.Uint32(el[8:])), int(binary.LittleEndian.Uint32(el[12:]))
		start := e + pos
		if pos < 0 || ksize < 0 || vsize < 0 || start+ksize+vsize > len(p) || start+ksize+vsize < start {
			return nil, false
		}
		out[i] = Element{Bucket: binary.LittleEndian.Uint32(el)&bucketLeaf != 0, Key: p[start : start+ksize], Value: p[start+ksize : start+ksize+vsize]}
		if i > 0 && bytes.Compare(out[i-1].Key, out[i].Key) >= 0 {
			return nil, false
		}
	}
	return out, true
}

// Meta is what a file's newest valid meta page says.
type Meta struct {
	PageSize int
	Root     uint64 // the page of the root bucket's tree
	Freelist uint64 // the free list's page, or NoFreelist
	High     uint64 // pages in use are below it
}

// ReadMeta reads the newest valid meta page of a file's bytes.
func ReadMeta(data []byte) (Meta, error) {
	r := &pageReader{data: data}
	hdr, err := r.meta()
	if err != nil {
		return Meta{}, err
	}
	return Meta{PageSize: r.pageSize, Root: binary.LittleEndian.Uint64(hdr), Freelist: r.freelist, High: r.high}, nil
}

// Page is page id of a file's bytes (with its overflow pages) and its
// type, if its header names it, a known type, and pages in use inside
// the file.
func Page(data []byte, m Meta, id uint64) (page []byte, flags uint16, ok bool) {
	r := &pageReader{data: data, pageSize: m.PageSize, high: m.High}
	p, flags, _, ok := r.scanPage(id)
	return p, flags, ok
}
