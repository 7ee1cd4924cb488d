package store

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"go.etcd.io/bbolt"
)

// OpenChecked opens a store on the real bbolt file at path (in the
// test's t.TempDir()) and, when the test ends, closes it and checks the
// file, as bbolt's own tests do after each test and as doctor does; the
// test fails on any finding: the store's page reader, bbolt's
// consistency check (every page reached once, the free list in step),
// and, unless the test said UncheckedSessions, every session's chain,
// references and derived indexes.
func OpenChecked(tb testing.TB, path string, o Options) *Store {
	tb.Helper()
	s, err := Open(path, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("closing %s: %v", path, err)
		}
		findings := FileFindings(path)
		if _, skip := unchecked.Load(tb); !skip && len(findings) == 0 {
			findings = SessionFindings(path)
		}
		for _, f := range findings {
			tb.Errorf("%s after the test: %s", path, f)
		}
	})
	return s
}

// unchecked holds the tests that said UncheckedSessions.
var unchecked sync.Map // testing.TB → why

// UncheckedSessions says that the test damages its sessions, leaves them
// incomplete or has another build write them, on purpose (why says
// which): the stores it opens with OpenChecked have their file's pages
// checked when it ends, not their sessions.
func UncheckedSessions(tb testing.TB, why string) {
	if why == "" {
		panic("UncheckedSessions: say why the sessions are left unchecked")
	}
	unchecked.Store(tb, why)
}

// FileFindings is what the store's page reader and bbolt's consistency
// check find wrong with the pages of the closed store file at path. The
// page reader goes first: bbolt trusts the pages it is given.
func FileFindings(path string) []string {
	if err := checkStructure(path, time.Second); err != nil {
		return []string{err.Error()}
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return []string{fmt.Sprintf("bbolt cannot open it: %v", err)}
	}
	defer db.Close()
	var out []string
	db.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			out = append(out, "bbolt: "+err.Error())
		}
		return nil
	})
	return out
}

// SessionFindings is what doctor finds wrong with the sessions of the
// closed store file at path: chains, references, derived indexes.
func SessionFindings(path string) []string {
	rep, err := DoctorFile(path, time.Second, SalvageOptions{})
	if err != nil {
		return []string{fmt.Sprintf("doctor: %v", err)}
	}
	var out []string
	for _, r := range rep.Sessions {
		if !r.OK() {
			out = append(out, fmt.Sprintf("session %d: %s %s%s", r.Session, r.Health.Status, r.Health.Reason, r.IndexProblem))
		}
	}
	return out
}

// OpenUnchecked opens a store on path and closes it when the test ends,
// checking nothing: for a test that damages the file's pages on purpose
// (why says how).
func OpenUnchecked(tb testing.TB, path string, o Options, why string) *Store {
	tb.Helper()
	if why == "" {
		panic("OpenUnchecked: say why the file is left unchecked")
	}
	s, err := Open(path, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}
