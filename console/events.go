package console

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
)

// eventsView is a session's event history, a page of its log at a time,
// in the log's order.
type eventsView struct {
	ID     engine.SessionID
	Health execute.Health
	Events []event.Event // the page's events
	At     pager
	Now    time.Time
}

// sessionEvents renders /sessions/{session}/events: the log a page at a
// time (?from= is the first shown), each event with its JSON on demand.
func (c *Console) sessionEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := sessionParam(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	m := c.chrome("Events of " + id.String())
	g, h, err := c.fold(id)
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, "the events of "+id.String(), err)
		return
	}
	v := eventsView{ID: id, Health: h, Now: c.now()}
	path := "/sessions/" + id.String() + "/events"
	v.Events, v.At = pageOf(g.Events(), path, r.URL.Query(), "from", "event", "events", c.settings().PageSize)
	c.render(w, r, http.StatusOK, eventsPage(m, v))
}

// sessionEventsJSON streams /sessions/{session}/events.json: the whole
// log up to its last good event, each event as stored (canonical JSON)
// with its time in words a reader can use. It is written as it is read,
// so a long log costs no more memory than its fold already holds.
func (c *Console) sessionEventsJSON(w http.ResponseWriter, r *http.Request) {
	id, ok := sessionParam(r)
	if !ok {
		c.notFound(w, r)
		return
	}
	g, h, err := c.fold(id)
	if errors.Is(err, engine.ErrNotFound) {
		c.notFound(w, r)
		return
	}
	if err != nil {
		c.fail(w, r, "the events of "+id.String(), err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `inline; filename="`+id.String()+`-events.json"`)
	b := bufio.NewWriterSize(w, 32<<10)
	fmt.Fprintf(b, `{"sessionId":%q,"health":%q,"events":[`, id.String(), string(h.Status))
	for i, e := range g.Events() {
		raw, err := event.Encode(e)
		if err != nil { // a folded event encodes: it was decoded from these bytes
			c.logf("console: events of %s: %v", id, err)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n")
		if t, ok := e.AppendedAt.Time(); ok {
			fmt.Fprintf(b, `{"time":%q,"event":`, t.Format("2006-01-02T15:04:05.000Z07:00"))
		} else {
			b.WriteString(`{"event":`)
		}
		b.Write(raw)
		b.WriteByte('}')
	}
	b.WriteString("\n]}\n")
	b.Flush()
}

// sessionParam reads the {session} of a page's path.
func sessionParam(r *http.Request) (engine.SessionID, bool) {
	var id engine.SessionID
	return id, id.UnmarshalText([]byte(chi.URLParam(r, "session"))) == nil
}

// eventJSON is an event's stored bytes as a page shows them.
func eventJSON(e event.Event) string {
	b, err := event.Encode(e)
	if err != nil {
		return err.Error()
	}
	return clip(string(b), maxShownValue)
}

// eventSummary says in one line what an event recorded.
func eventSummary(e event.Event) string {
	switch d := e.Data.(type) {
	case *event.SessionCreatedData:
		if d.ImportedFrom != nil {
			return "session imported from " + d.ImportedFrom.Session.String()
		}
		if d.WorkspacePath != "" {
			return "session started in " + d.WorkspacePath
		}
		return "session started"
	case *event.ObservationRecordedData:
		return string(d.Key) + " = " + d.Value
	case *event.RunStartedData:
		s := "run of " + string(d.WorkflowID)
		if d.Repo != (event.RepoPin{}) {
			s += " from " + d.Repo.URL + " at " + d.Repo.Short()
		}
		if d.RestartOf != 0 {
			s += ", starting " + d.RestartOf.String() + " over"
		}
		return s
	case *event.NodeCreatedData:
		return string(d.NodeKind) + " node created"
	case *event.EdgeCreatedData:
		return strings.ReplaceAll(string(d.EdgeKind), "_", " ") + ": " + d.From.String() + " → " + d.To.String()
	case *event.NodeOutputAppendedData:
		s := "output of " + string(d.StepID)
		if n := len(d.Artifacts); n > 0 {
			s += ", " + count(n, "artifact", "artifacts")
		}
		if line := firstLine(d.NotesMarkdown); line != "" {
			s += ": " + line
		}
		return s
	case *event.PreferencesChangedData:
		return "preferences: " + string(d.Effective.Autonomy) + ", risk " + string(d.Effective.RiskPolicy)
	case *event.CapabilityObservedData:
		return string(d.Capability) + " " + string(d.Status)
	case *event.GapRecordedData:
		if d.ResolvesGapID != "" {
			return "resolves " + string(d.ResolvesGapID) + ": " + firstLine(d.Summary)
		}
		return string(d.Severity) + " gap (" + strings.ReplaceAll(string(d.Reason), "_", " ") + "): " + firstLine(d.Summary)
	case *event.DivergenceRecordedData:
		return "divergence (" + strings.ReplaceAll(string(d.Reason), "_", " ") + "): " + firstLine(d.Summary)
	case *event.DecisionTraceAppendedData:
		return strings.ReplaceAll(string(d.TraceKind), "_", " ") + ": " + firstLine(d.Summary)
	case *event.AdvanceRecordedData:
		s := "attempt " + strconv.FormatUint(uint64(d.Attempt), 10) + " " + string(d.Outcome)
		if d.ToNode != 0 {
			s += " → " + d.ToNode.String()
		}
		if n := len(d.Blockers); n > 0 {
			s += ", " + count(n, "blocker", "blockers")
		}
		return s
	}
	return string(e.Kind)
}

// firstLine is the first line of s with text, cut to a summary's length.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			return clip(t, 200)
		}
	}
	return ""
}
