package console

import (
	"net/url"
	"strconv"
)

// pager is one paged section of a page: which stretch of a list in a
// fixed order (the log's, never a clock's) it shows, and plain links to
// the stretches before and after it, which work without a script. The
// position of the first item shown is in the page's query under key.
type pager struct {
	key          string
	one, many    string // what is listed: "note", "notes"
	First, Shown int
	Total        int
	size         int
	path         string
	query        url.Values // the page's query: every other section keeps its place
}

// pageOf is the stretch of items the page's query asks for under key,
// size items at most; a position past the end shows the last page.
func pageOf[T any](items []T, path string, q url.Values, key, one, many string, size int) ([]T, pager) {
	size = max(size, 1)
	first, _ := strconv.Atoi(q.Get(key))
	if first >= len(items) {
		first = (max(len(items)-1, 0) / size) * size
	}
	first = max(first, 0)
	shown := items[first:min(len(items), first+size)]
	return shown, pager{key: key, one: one, many: many, First: first, Shown: len(shown), Total: len(items), size: size, path: path, query: q}
}

// Paged says whether the list is longer than a page.
func (p pager) Paged() bool { return p.Total > p.size }

// Text says what the page shows and what it left out.
func (p pager) Text() string {
	return "showing " + strconv.Itoa(p.First+1) + "–" + strconv.Itoa(p.First+p.Shown) + " of " + count(p.Total, p.one, p.many)
}

// Prev is the link to the stretch before, "" on the first.
func (p pager) Prev() string {
	if p.First == 0 {
		return ""
	}
	return p.at(max(p.First-p.size, 0))
}

// Next is the link to the stretch after, "" on the last.
func (p pager) Next() string {
	if p.First+p.Shown >= p.Total {
		return ""
	}
	return p.at(p.First + p.size)
}

// at is the page's URL with this section starting at first.
func (p pager) at(first int) string {
	q := url.Values{}
	for k, v := range p.query {
		q[k] = v
	}
	q.Del(p.key)
	if first > 0 {
		q.Set(p.key, strconv.Itoa(first))
	}
	if len(q) == 0 {
		return p.path
	}
	return p.path + "?" + q.Encode()
}
