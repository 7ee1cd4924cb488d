package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/store/pagefile"
)

// Report is the verified health of one session. IndexProblem, when set,
// says how the derived indexes differ from a refold of the log.
type Report struct {
	Session      engine.SessionID `json:"sessionId"`
	Health       execute.Health   `json:"health"`
	IndexProblem string           `json:"indexProblem,omitempty"`
	// Needs, for a session of a damaged file that salvage cannot copy,
	// are the pinned workflows nothing holds (Lost.Needs).
	Needs []Pin `json:"needs,omitempty"`
}

// OK reports whether the session is healthy with consistent indexes.
func (r Report) OK() bool { return r.Health.Status == execute.Healthy && r.IndexProblem == "" }

// Doctor verifies every session fully (chain, snapshots, pinned workflows,
// derived indexes), bypassing the health cache.
func (s *Store) Doctor() ([]Report, error) {
	ids, err := s.SessionIDs()
	if err != nil {
		return nil, err
	}
	out := make([]Report, 0, len(ids))
	for _, id := range ids {
		r, err := s.Verify(id)
		if errors.Is(err, ErrDamaged) {
			r, err = Report{Session: id, Health: unreadable(err)}, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Verify checks session id completely, bypassing the health cache: the
// chain, every snapshot and pinned workflow its events reference and, for
// a healthy log, its derived indexes.
func (s *Store) Verify(id engine.SessionID) (Report, error) {
	var r Report
	err := s.view(id, func(t *Tx) error {
		var err error
		r, err = t.verify(t.checkRefs)
		return err
	})
	return r, err
}

// verify checks the chain, passing each good event to check when set, and,
// for a healthy log, the derived indexes.
func (t *Tx) verify(check func(event.Event) error) (Report, error) {
	r := Report{Session: t.id}
	var evs []event.Event
	r.Health = t.verifyChain(func(e event.Event) error {
		evs = append(evs, e)
		if check != nil {
			return check(e)
		}
		return nil
	})
	if r.Health.Status != execute.Healthy {
		return r, nil
	}
	var err error
	r.IndexProblem, err = t.checkIndexes(evs)
	return r, err
}

// FileReport is doctor's verdict on a database file read without a
// daemon: damage to the file's pages, and each session's health.
type FileReport struct {
	Structure []string `json:"structure"`
	Sessions  []Report `json:"sessions"`
	// Reach is, for a damaged file, what its salvage could find; for a
	// whole one, an exact count.
	Reach
}

// DoctorFile checks the database at path, which no daemon may be
// writing. A file whose pages are whole is checked through bbolt, as a
// daemon checks it; a damaged one is salvaged (with o) into a scratch
// file, and what that keeps is what doctor reports healthy.
func DoctorFile(path string, timeout time.Duration, o SalvageOptions) (FileReport, error) {
	rep := FileReport{Structure: []string{}, Sessions: []Report{}, Reach: Reach{Count: CountExact}}
	f, err := os.Open(path)
	if err != nil {
		return rep, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	if err := lockShared(f, timeout); err != nil {
		return rep, err
	}
	_, problems, err := pagefile.ReadFile(f, false)
	if err != nil {
		return rep, err
	}
	if len(problems) > 0 {
		return doctorDamaged(path, o)
	}
	s, err := Open(path, Options{ReadOnly: true, LockTimeout: timeout})
	if err != nil {
		return rep, err
	}
	defer s.Close()
	rep.Sessions, err = s.Doctor()
	return rep, err
}

func doctorDamaged(path string, o SalvageOptions) (FileReport, error) {
	dir, err := os.MkdirTemp("", "workrail-doctor-")
	if err != nil {
		return FileReport{}, err
	}
	defer os.RemoveAll(dir)
	salvage, err := Salvage(path, filepath.Join(dir, "salvaged.db"), o)
	if err != nil {
		return FileReport{}, err
	}
	s, err := Open(filepath.Join(dir, "salvaged.db"), Options{ReadOnly: true})
	if err != nil {
		return FileReport{}, err
	}
	defer s.Close()
	rep := FileReport{Structure: salvage.Structure, Reach: salvage.Reach}
	if rep.Sessions, err = s.Doctor(); err != nil {
		return rep, err
	}
	for _, l := range salvage.Lost {
		rep.Sessions = append(rep.Sessions, Report{Session: l.Session, Health: execute.Health{Status: execute.Unreadable, Reason: l.Reason}, Needs: l.Needs})
	}
	sort.Slice(rep.Sessions, func(i, j int) bool { return rep.Sessions[i].Session < rep.Sessions[j].Session })
	return rep, nil
}
