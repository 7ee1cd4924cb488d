package main

import (
	"fmt"
	"testing"

	"github.com/workrail/workrail/engine"
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
