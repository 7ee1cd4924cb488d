package daemon

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/project"
)

// written is a store's sessions in write order, the last written last:
// Recent walks them from the newest down, below a write number.
type written []engine.SessionID

func (w written) Recent(below execute.Write, fn func(engine.SessionID, execute.Write, project.Overview, error) bool) error {
	for i := len(w) - 1; i >= 0; i-- {
		at := execute.Write(i + 1)
		if below != 0 && at >= below {
			continue
		}
		var err error
		if w[i] == 13 {
			err = fmt.Errorf("damaged overview")
		}
		if !fn(w[i], at, project.Overview{Title: "t"}, err) {
			return nil
		}
	}
	return nil
}

// resources/list pages every session once, the most recently written
// first, a damaged overview included with a word on what to run.
func TestSessionsPages(t *testing.T) {
	var w written
	for i := range 7 {
		w = append(w, engine.SessionID(10+i))
	}
	a := libraryAPI{st: w, logf: t.Logf}
	var got []string
	cursor, pages := "", 0
	for {
		p, e := a.Sessions(cursor, 3)
		if e != nil {
			t.Fatal(e.Error)
		}
		pages++
		for _, s := range p.Sessions {
			got = append(got, s.ID)
			if s.ID == "ses_13" && s.Description != "its overview cannot be read; `workrail doctor` says why" {
				t.Errorf("damaged session described %q", s.Description)
			}
		}
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	want := "[ses_16 ses_15 ses_14 ses_13 ses_12 ses_11 ses_10]"
	if fmt.Sprint(got) != want || pages != 3 {
		t.Fatalf("%d pages: %v; want 3: %s", pages, got, want)
	}
	for _, bad := range []string{"x", "0", "-1"} {
		if _, e := a.Sessions(bad, 3); e == nil || e.Error.Code != engine.CodeInvalidInput {
			t.Errorf("cursor %q: %v", bad, e)
		}
	}
}

// A session resource is titled by its session's title (one line, clipped)
// and described by its state, workflows and last activity.
func TestSessionResourceSummary(t *testing.T) {
	at := event.Millis(time.Date(2026, 7, 28, 9, 30, 0, 0, time.UTC).UnixMilli())
	for _, tc := range []struct {
		name        string
		o           project.Overview
		err         error
		title, desc string
	}{
		{"in progress", project.Overview{Title: "Fix login redirect\nmore lines", Last: 12, LastKind: event.NodeOutputAppended, LastTime: at,
			Runs:     []project.RunOverview{{WorkflowID: "wr.bug_investigation", Status: project.InProgress, Pending: "reproduce"}},
			OpenGaps: []project.OpenGap{{}, {}}}, nil,
			"Fix login redirect",
			"in progress at step reproduce, 2 open gaps · wr.bug_investigation, 1 run · last activity 2026-07-28 09:30 UTC, event 12, node output appended"},
		{"complete, two runs, no time recorded", project.Overview{Title: strings.Repeat("long ", 20), Last: 40, LastKind: event.NodeCreated,
			Runs: []project.RunOverview{{WorkflowID: "wr.hello", Status: project.Complete}, {WorkflowID: "wr.hello", Status: project.Complete}}}, nil,
			strings.Repeat("long ", 11) + "long…",
			"complete · wr.hello, 2 runs · last activity event 40, node created"},
		{"no title yet", project.Overview{Last: 1, LastKind: event.SessionCreated}, nil, "", "in progress · -, 0 runs · last activity event 1, session created"},
		{"damaged", project.Overview{}, fmt.Errorf("damaged"), "", "its overview cannot be read; `workrail doctor` says why"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := summary(engine.SessionID(12), tc.o, tc.err)
			if s.ID != "ses_12" || s.Title != tc.title || s.Description != tc.desc {
				t.Errorf("summary %+v\nwant title %q\n     description %q", s, tc.title, tc.desc)
			}
		})
	}
}
