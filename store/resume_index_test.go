package store

import (
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/resume"
)

// Commits and rebuilds report to the in-memory index after their write
// commits, in any order: whatever the order, it keeps the record of the
// longest log, and a rebuild's record replaces one of the same log.
func TestResumeIndexKeepsTheLatestRecord(t *testing.T) {
	const id = engine.SessionID(1)
	rec := func(last engine.EventIndex) *resume.Record { return &resume.Record{Session: id, Last: last} }
	type report func(*resumeIndex)
	committed := func(r *resume.Record) report { return func(x *resumeIndex) { x.committed(r) } }
	rebuilt := func(head engine.EventIndex, r *resume.Record) report {
		return func(x *resumeIndex) { x.replace(id, head, r) }
	}
	older, newer, rebuild := rec(5), rec(7), rec(5)
	cases := []struct {
		name    string
		reports []report
		want    *resume.Record // nil: none
	}{
		{"commits in order", []report{committed(older), committed(newer)}, newer},
		{"commits out of order", []report{committed(newer), committed(older)}, newer},
		{"a rebuild, then a later commit", []report{committed(older), rebuilt(5, rebuild), committed(newer)}, newer},
		{"a later commit reported before the rebuild", []report{committed(older), committed(newer), rebuilt(5, rebuild)}, newer},
		{"a rebuild of the same log", []report{committed(older), rebuilt(5, rebuild)}, rebuild},
		{"a rebuild without a record", []report{committed(older), rebuilt(5, nil)}, nil},
		{"a later commit reported before a rebuild without a record", []report{committed(newer), rebuilt(5, nil)}, newer},
		{"a deletion", []report{committed(newer), func(x *resumeIndex) { x.drop(id) }}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := &resumeIndex{loaded: true, recs: map[engine.SessionID]*resume.Record{}}
			for _, r := range c.reports {
				r(x)
			}
			if got := x.recs[id]; got != c.want {
				t.Fatalf("kept %+v; want %+v", got, c.want)
			}
		})
	}
}
