package console

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/workrail/workrail/console/markdown"
	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// openGap is an open gap and the session it is in.
type openGap struct {
	Session engine.SessionID
	project.GapState
	// StepTitle is the title of the step the gap was recorded at (its
	// RelatedStepID) in the run's pinned workflow; "" when it names none.
	StepTitle string
	// SessionTitle names the session as its page does ("" when nothing
	// named it).
	SessionTitle string
	// Row is the node of the run page's row whose attempt recorded it:
	// the node its node was made from (a start's gap: the run's first).
	Row  engine.NodeID
	hash engine.WorkflowHash // the run's pinned workflow
}

// gapFilter is the gaps page's filter, from its query; empty fields
// admit everything.
type gapFilter struct {
	Severity event.GapSeverity
	Reason   event.GapReason
}

func (f gapFilter) admit(g gapKind) bool {
	return (f.Severity == "" || g.Severity == f.Severity) && (f.Reason == "" || g.Reason == f.Reason)
}

// gapKind is what the filter reads of an open gap: the severity and
// reason it was recorded with.
type gapKind struct {
	Severity event.GapSeverity
	Reason   event.GapReason
}

func (f gapFilter) any() bool { return f.Severity != "" || f.Reason != "" }

// gapRef places one open gap in the gaps list: sessions newest first,
// each one's gaps in log order. The order is the ids', never a clock's.
type gapRef struct {
	Session engine.SessionID
	Index   engine.EventIndex
}

// before says whether a comes before b in the list.
func (a gapRef) before(b gapRef) bool {
	return a.Session > b.Session || (a.Session == b.Session && a.Index < b.Index)
}

func (a gapRef) String() string { return string(engine.NewEventID(a.Session, a.Index)) }

// parseGapRef reads a gap's event id, "evt_<session>_<index>".
func parseGapRef(s string) (gapRef, bool) {
	rest, ok := strings.CutPrefix(s, "evt_")
	ses, idx, ok2 := strings.Cut(rest, "_")
	a, err1 := strconv.ParseUint(ses, 10, 64)
	b, err2 := strconv.ParseUint(idx, 10, 64)
	if !ok || !ok2 || err1 != nil || err2 != nil {
		return gapRef{}, false
	}
	return gapRef{engine.SessionID(a), engine.EventIndex(b)}, true
}

// gapsQuery is what the gaps page's URL asks for: a filter and at most
// one cursor, a gap the page starts after or ends before.
type gapsQuery struct {
	Filter        gapFilter
	After, Before gapRef // zero: none
}

// gapsList is one page of the open gaps.
type gapsList struct {
	Query gapsQuery
	Gaps  []openGap
	// First is the position of Gaps[0] in the list of Total matching
	// gaps; Open counts every open gap, whatever the filter.
	First, Total, Open int
	Prev, Next         gapRef // the cursors of the neighbouring pages; zero: none
}

// gapList renders one page of the open gaps across sessions. A filter
// value outside the closed sets is ignored, and a malformed cursor is
// not found.
func (c *Console) gapList(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Open gaps")
	q, ok := parseGapsQuery(r.URL.Query())
	if !ok {
		c.notFound(w, r)
		return
	}
	list, err := c.gaps(q, c.settings().PageSize)
	if err != nil {
		c.fail(w, r, "the gaps", err)
		return
	}
	c.render(w, r, http.StatusOK, gapsPage(m, list))
}

func parseGapsQuery(u url.Values) (gapsQuery, bool) {
	var q gapsQuery
	if s := event.GapSeverity(u.Get("severity")); slices.Contains(event.GapSeverities(), s) {
		q.Filter.Severity = s
	}
	if s := event.GapReason(u.Get("reason")); slices.Contains(event.GapReasons(), s) {
		q.Filter.Reason = s
	}
	for key, ref := range map[string]*gapRef{"after": &q.After, "before": &q.Before} {
		if v := u.Get(key); v != "" {
			var ok bool
			if *ref, ok = parseGapRef(v); !ok {
				return q, false
			}
		}
	}
	return q, true
}

// gaps reads one page of size. The open gaps are listed from the stored
// overviews, which name them with their severity and reason, so a filter
// reads no gap record and only the page's gaps are read from the logs.
// Both lists are kept until the store changes: a page reloaded in a loop
// costs the reads of its own gaps only.
func (c *Console) gaps(q gapsQuery, size int) (gapsList, error) {
	changes := c.store.Changes()
	all, err := c.gapRefs.get(changes, gapFilter{}, c.openGapRefs)
	if err != nil {
		return gapsList{}, err
	}
	list, refs := gapsList{Query: q, Open: len(all.refs)}, all.refs
	if q.Filter.any() {
		f, err := c.gapRefs.get(changes, q.Filter, func() (gapRefs, error) { return filterRefs(all, q.Filter), nil })
		if err != nil {
			return list, err
		}
		refs = f.refs
	}
	list.Total = len(refs)
	from, to := pageBounds(refs, q, size)
	list.First = from
	if from > 0 {
		list.Prev = refs[from]
	}
	if to < len(refs) {
		list.Next = refs[to-1]
	}
	list.Gaps, err = c.readGaps(refs[from:to])
	return list, err
}

// gapRefs is an ordered list of open gaps; the unfiltered list also
// keeps each one's kind (kinds[i] is that of refs[i]) for the filters.
type gapRefs struct {
	refs  []gapRef
	kinds []gapKind
}

// gapRefCache keeps the ordered lists of open gaps, unfiltered and per
// filter (a closed set: at most 18 of them), read at one change cursor.
// One list is read at a time: requests that miss together wait for it
// rather than each reading every overview.
type gapRefCache struct {
	reading sync.Mutex
	mu      sync.Mutex
	changes uint64
	lists   map[gapFilter]gapRefs
}

// get is the list for f at cursor changes, read by read when not kept.
func (k *gapRefCache) get(changes uint64, f gapFilter, read func() (gapRefs, error)) (gapRefs, error) {
	if refs, ok := k.kept(changes, f); ok {
		return refs, nil
	}
	k.reading.Lock()
	defer k.reading.Unlock()
	if refs, ok := k.kept(changes, f); ok {
		return refs, nil
	}
	refs, err := read()
	if err != nil {
		return gapRefs{}, err
	}
	k.mu.Lock()
	if k.changes == changes {
		k.lists[f] = refs
	}
	k.mu.Unlock()
	return refs, nil
}

// kept is the list kept for f at changes; a newer cursor drops them all.
func (k *gapRefCache) kept(changes uint64, f gapFilter) (gapRefs, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if changes > k.changes || k.lists == nil {
		k.changes, k.lists = changes, map[gapFilter]gapRefs{}
	}
	refs, ok := k.lists[f]
	return refs, ok && changes == k.changes // a request older than the kept lists reads its own
}

// pageBounds is the slice of refs a page shows: size gaps after q.After,
// or ending before q.Before, or from the top. A cursor need not be in
// refs (its gap may have been resolved since): its place in the order
// is enough.
func pageBounds(refs []gapRef, q gapsQuery, size int) (from, to int) {
	at := func(c gapRef) int {
		i, _ := slices.BinarySearchFunc(refs, c, func(a, b gapRef) int {
			switch {
			case a.before(b):
				return -1
			case b.before(a):
				return 1
			}
			return 0
		})
		return i
	}
	switch {
	case q.Before != (gapRef{}):
		to = at(q.Before)
		from = max(0, to-size)
		return from, min(len(refs), from+size)
	case q.After != (gapRef{}):
		from = at(q.After)
		if from < len(refs) && refs[from] == q.After {
			from++
		}
	}
	return from, min(len(refs), from+size)
}

// openGapRefs lists every open gap in order, with its kind, from the
// overviews. A session whose overview cannot be read has its gaps folded
// from its log.
func (c *Console) openGapRefs() (gapRefs, error) {
	var all gapRefs
	var unread []engine.SessionID
	err := c.store.Overviews(0, func(id engine.SessionID, o project.Overview, err error) bool {
		if err != nil {
			unread = append(unread, id)
			all.refs = append(all.refs, gapRef{Session: id}) // its place, filled below
			all.kinds = append(all.kinds, gapKind{})
			return true
		}
		for _, g := range o.OpenGaps {
			if ref, ok := parseGapRef(string(g.ID)); ok && ref.Session == id {
				all.refs = append(all.refs, ref)
				all.kinds = append(all.kinds, gapKind{g.Severity, g.Reason})
			}
		}
		return true
	})
	if err != nil || len(unread) == 0 {
		return all, err
	}
	return c.foldUnread(all, unread)
}

// foldUnread replaces each placeholder of a session whose overview could
// not be read with its open gaps, folded from its log.
func (c *Console) foldUnread(all gapRefs, unread []engine.SessionID) (gapRefs, error) {
	open := map[engine.SessionID]gapRefs{}
	for _, id := range unread {
		evs, _, err := c.store.Events(id)
		if err != nil {
			return gapRefs{}, err
		}
		for _, g := range project.Gaps(evs) {
			if !g.Resolved() {
				o := open[id]
				o.refs = append(o.refs, gapRef{id, g.CreatedAt})
				o.kinds = append(o.kinds, gapKind{g.Gap.Severity, g.Gap.Reason})
				open[id] = o
			}
		}
	}
	out := gapRefs{refs: make([]gapRef, 0, len(all.refs)), kinds: make([]gapKind, 0, len(all.kinds))}
	for i, r := range all.refs {
		if r.Index == 0 {
			out.refs = append(out.refs, open[r.Session].refs...)
			out.kinds = append(out.kinds, open[r.Session].kinds...)
			continue
		}
		out.refs, out.kinds = append(out.refs, r), append(out.kinds, all.kinds[i])
	}
	return out, nil
}

// filterRefs keeps the gaps of the unfiltered list all that the filter
// admits, by the kinds the overviews keep: no gap record is read.
func filterRefs(all gapRefs, f gapFilter) gapRefs {
	var out gapRefs
	for i, r := range all.refs {
		if f.admit(all.kinds[i]) {
			out.refs = append(out.refs, r)
		}
	}
	return out
}

// readGaps reads the records of refs, one read transaction per session.
func (c *Console) readGaps(refs []gapRef) ([]openGap, error) {
	out := make([]openGap, 0, len(refs))
	for i := 0; i < len(refs); {
		j := i
		for j < len(refs) && refs[j].Session == refs[i].Session {
			j++
		}
		err := c.store.View(refs[i].Session, func(tx execute.ReadTx) error {
			for _, ref := range refs[i:j] {
				e, err := tx.Event(ref.Index)
				if err != nil {
					return err
				}
				g, ok := e.Data.(*event.GapRecordedData)
				if !ok {
					return engine.ErrNotFound
				}
				rn, err := tx.Run(e.Run)
				if err != nil {
					return err
				}
				n, err := tx.Node(e.Node)
				if err != nil {
					return err
				}
				out = append(out, openGap{Session: ref.Session, GapState: project.GapState{ID: e.ID, CreatedAt: e.Index, Run: e.Run, Node: e.Node, Gap: *g},
					Row: cmp.Or(n.Parent, n.ID), hash: rn.WorkflowHash})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		i = j
	}
	return out, c.titleGaps(out)
}

// titleGaps names the session of each gap, and the step of each gap
// that names one, from its run's pinned workflow (read outside the gaps'
// read transactions).
func (c *Console) titleGaps(gaps []openGap) error {
	titles := map[engine.SessionID]string{}
	for i, g := range gaps {
		if _, ok := titles[g.Session]; !ok {
			if o, err := c.store.Overview(g.Session); err == nil {
				titles[g.Session] = markdown.Plain(o.Title)
			}
		}
		gaps[i].SessionTitle = titles[g.Session]
		if g.Gap.RelatedStepID == "" {
			continue
		}
		p, err := c.pinned(g.Session, g.hash)
		if err != nil {
			return err
		}
		gaps[i].StepTitle = stepTitle(p.Compiled, g.Gap.RelatedStepID)
	}
	return nil
}

// url is the gaps page with its filter and one cursor (key "": none).
func (l gapsList) url(key string, ref gapRef) string {
	v := url.Values{}
	if f := l.Query.Filter; f.Severity != "" {
		v.Set("severity", string(f.Severity))
	}
	if f := l.Query.Filter; f.Reason != "" {
		v.Set("reason", string(f.Reason))
	}
	if key != "" {
		v.Set(key, ref.String())
	}
	if len(v) == 0 {
		return "/gaps"
	}
	return "/gaps?" + v.Encode()
}

// shown says which gaps the page shows of how many, and what the filter
// left out: "showing 51–100 of 9,000 open gaps".
func (l gapsList) shown() string {
	s := "showing " + strconv.Itoa(l.First+1) + "–" + strconv.Itoa(l.First+len(l.Gaps)) + " of " + count(l.Total, "open gap", "open gaps") + filterText(l.Query.Filter)
	if l.Query.Filter.any() {
		s += " (" + count(l.Open, "open gap", "open gaps") + " in all)"
	}
	return s
}

// count writes n with its noun: "1 open gap", "9,000 open gaps".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s + " " + many
}

func filterText(f gapFilter) string {
	out := ""
	if f.Severity != "" {
		out += " of severity " + string(f.Severity)
	}
	if f.Reason != "" {
		out += " because " + gapReasonText(f.Reason)
	}
	return out
}
