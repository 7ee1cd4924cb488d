package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/store"
)

// pristine builds a database of several sessions, long and short, and
// returns its path and each session's chain head.
func pristine(t *testing.T) (string, map[engine.SessionID]engine.Digest) {
	t.Helper()
	r := newRig(t, executetest.Long(t, 40))
	for i := 0; i < 6; i++ {
		s := r.step(t, r.x.Start, map[string]any{"workflowId": "wr.long"})
		for j := 0; j < 5+5*i; j++ {
			s = r.step(t, r.x.Continue, s.NextCall.Arguments)
		}
	}
	heads := map[engine.SessionID]engine.Digest{}
	ids, err := r.store.SessionIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		heads[id], _ = r.store.Digest(id)
	}
	r.store.Close()
	return r.path, heads
}

// flip copies the database and flips one bit of one page: half the time
// in the page's header or first element headers (flags, counts, offsets:
// the structure), else anywhere in it.
func flip(t *testing.T, src string, rng *rand.Rand) (string, string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize = 4096
	page := 2 + rng.IntN(len(b)/pageSize-2)
	off := rng.IntN(pageSize)
	if rng.IntN(2) == 0 {
		off = rng.IntN(80)
	}
	at := page*pageSize + off
	bit := byte(1) << rng.IntN(8)
	b[at] ^= bit
	path := filepath.Join(t.TempDir(), "flipped.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, fmt.Sprintf("page %d offset %d bit %02x", page, off, bit)
}

// A bit flipped anywhere in the file's pages never crashes WorkRail: a
// daemon either opens the file or refuses it as damaged, doctor reports
// what it can read, and salvage copies sessions that survive byte for
// byte. WORKRAIL_FLIPS sets how many flips (default 40), WORKRAIL_FLIP_SEED
// which (a number, or random).
func TestPageDamageNeverCrashesAndSalvageKeepsIntactSessions(t *testing.T) {
	src, heads := pristine(t)
	flips := 40
	if n, err := strconv.Atoi(os.Getenv("WORKRAIL_FLIPS")); err == nil {
		flips = n
	}
	// The ordinary run flips the same bits every time; a long run names
	// its own seed, or "random".
	seed := uint64(20261123)
	switch v := os.Getenv("WORKRAIL_FLIP_SEED"); v {
	case "":
	case "random":
		seed = rand.Uint64()
	default:
		if s, err := strconv.ParseUint(v, 10, 64); err == nil {
			seed = s
		}
	}
	t.Logf("seed %d (WORKRAIL_FLIP_SEED to repeat)", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	// The flips are drawn in order, so a seed names the same files; each
	// file is then checked on its own, beside the others.
	var mu sync.Mutex
	var refused, reported, salvaged, lost int
	t.Run("flips", func(t *testing.T) {
		for i := 0; i < flips; i++ {
			path, where := flip(t, src, rng)
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				r := checkFlip(t, path, where, heads)
				mu.Lock()
				defer mu.Unlock()
				refused, reported, salvaged, lost = refused+r.refused, reported+r.reported, salvaged+r.salvaged, lost+r.lost
			})
		}
	})
	t.Logf("%d flips: %d files refused for writing, %d with damage reported by doctor; salvage kept %d sessions, lost %d",
		flips, refused, reported, salvaged, lost)
}

// flipResult is what one flipped file did: refused for writing, reported
// damaged by doctor (0 or 1 each), and the sessions salvage kept and lost.
type flipResult struct{ refused, reported, salvaged, lost int }

// checkFlip opens the flipped file at path as a daemon would, runs doctor
// and salvage on a copy, and checks what salvage kept.
func checkFlip(t *testing.T, path, where string, heads map[engine.SessionID]engine.Digest) flipResult {
	var r flipResult
	// Doctor and salvage read their own copy, as a fresh process would:
	// a write that failed on damage may leave this process holding the
	// lock of the copy a daemon opened.
	copied := filepath.Join(t.TempDir(), "copy.db")
	if b, err := os.ReadFile(path); err != nil || os.WriteFile(copied, b, 0o600) != nil {
		t.Fatal(err)
	}
	damaged := false
	// Open itself is under test on a file damaged at random: no check.
	if s, err := store.Open(path, store.Options{}); err == nil {
		damaged = exercise(t, s, heads)
		s.Close()
	} else {
		var de *store.DamagedError
		if !errors.As(err, &de) {
			t.Fatalf("%s: open failed without naming the damage: %v", where, err)
		}
		r.refused = 1
		damaged = true
	}
	doc, err := store.DoctorFile(copied, time.Second, store.SalvageOptions{})
	if err != nil {
		t.Fatalf("%s: doctor: %v", where, err)
	}
	for _, s := range doc.Sessions {
		damaged = damaged || !s.OK()
	}
	if len(doc.Structure) > 0 || damaged {
		r.reported = 1
	}
	out := filepath.Join(t.TempDir(), "salvaged.db")
	rep, err := store.Salvage(copied, out, store.SalvageOptions{})
	if err != nil {
		t.Fatalf("%s: salvage: %v", where, err)
	}
	r.salvaged, r.lost = len(rep.Salvaged), len(rep.Lost)
	checkSalvaged(t, where, out, rep, heads)
	return r
}

// exercise runs a daemon's reads and one write on a file that opened; it
// reports whether any session was found damaged.
func exercise(t *testing.T, s *store.Store, heads map[engine.SessionID]engine.Digest) bool {
	t.Helper()
	damaged := false
	for id := range heads {
		h, err := s.Health(id)
		if err != nil && !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("health of %s: %v", id, err)
		}
		damaged = damaged || h.Status != execute.Healthy
	}
	// A walk of the overviews passes every session, damaged or not.
	walked := 0
	err := s.Overviews(0, func(id engine.SessionID, _ project.Overview, err error) bool {
		walked++
		damaged = damaged || err != nil
		return true
	})
	if err != nil && !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("Overviews: %v", err)
	}
	if err == nil && walked < len(heads) && !damaged {
		t.Fatalf("Overviews passed %d of %d sessions, and no damage", walked, len(heads))
	}
	x := execute.New(s, executetest.Ring(t), executetest.Long(t, 3), workflow.Preferences{}, executetest.Clock, func(string, ...any) {})
	if x.Start(context.Background(), []byte(`{"workflowId":"wr.long"}`)) == nil {
		t.Fatal("start returned nothing")
	}
	return damaged
}

// checkSalvaged opens a salvaged file for writing (it must be whole) and
// compares every session it kept with the original.
func checkSalvaged(t *testing.T, where, out string, rep store.SalvageReport, heads map[engine.SessionID]engine.Digest) {
	t.Helper()
	s := store.OpenChecked(t, out, store.Options{})
	defer s.Close()
	for _, id := range rep.Salvaged {
		want, original := heads[id]
		if !original {
			continue // started by exercise on this copy
		}
		if d, err := s.Digest(id); err != nil || d != want {
			t.Fatalf("%s: salvaged %s differs from the original (%v)", where, id, err)
		}
		if r, err := s.Verify(id); err != nil || !r.OK() {
			t.Fatalf("%s: salvaged %s: %+v, %v", where, id, r, err)
		}
		if o, err := s.Overview(id); err != nil || o.Last == 0 || o.Runs[0].Nodes == 0 {
			t.Fatalf("%s: salvaged %s: overview %+v, %v", where, id, o, err)
		}
	}
}
