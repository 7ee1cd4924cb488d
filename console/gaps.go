package console

import (
	"net/http"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// openGap is an open gap and the session it is in.
type openGap struct {
	Session engine.SessionID
	project.GapState
}

// gapFilter is the gaps page's filter, from its query; empty fields
// admit everything.
type gapFilter struct {
	Severity event.GapSeverity
	Reason   event.GapReason
}

func (f gapFilter) admit(g event.GapRecordedData) bool {
	return (f.Severity == "" || g.Severity == f.Severity) && (f.Reason == "" || g.Reason == f.Reason)
}

// gapList renders every open gap across sessions, newest session first.
// A filter value outside the closed sets is ignored, not an error page.
func (c *Console) gapList(w http.ResponseWriter, r *http.Request) {
	m := c.chrome("Open gaps")
	var f gapFilter
	if s := event.GapSeverity(r.URL.Query().Get("severity")); slices.Contains(event.GapSeverities(), s) {
		f.Severity = s
	}
	if s := event.GapReason(r.URL.Query().Get("reason")); slices.Contains(event.GapReasons(), s) {
		f.Reason = s
	}
	// Only sessions whose overview lists an open gap (or whose overview
	// cannot be read) have their log read.
	var ids []engine.SessionID
	err := c.store.Overviews(0, func(id engine.SessionID, o project.Overview, err error) bool {
		if err != nil || len(o.OpenGaps) > 0 {
			ids = append(ids, id)
		}
		return true
	})
	if err != nil {
		c.fail(w, r, "the gaps", err)
		return
	}
	var gaps []openGap
	for _, id := range ids {
		evs, _, err := c.store.Events(id)
		if err != nil {
			c.fail(w, r, "the gaps of "+id.String(), err)
			return
		}
		for _, g := range project.Gaps(evs) {
			if !g.Resolved() && f.admit(g.Gap) {
				gaps = append(gaps, openGap{Session: id, GapState: g})
			}
		}
	}
	c.render(w, r, http.StatusOK, gapsPage(m, f, gaps))
}

func filterText(f gapFilter) string {
	out := ""
	if f.Severity != "" {
		out += " of severity " + string(f.Severity)
	}
	if f.Reason != "" {
		out += " for reason " + string(f.Reason)
	}
	return out
}
