package store_test

import (
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/store"
)

// The bbolt store passes the same contract as the in-memory one.
func TestContract(t *testing.T) {
	executetest.Contract(t, func(t *testing.T) executetest.Store {
		store.UncheckedSessions(t, "the contract appends events naming workflows it never pins: it tests the port, not whole sessions")
		return mustOpen(t, filepath.Join(t.TempDir(), "w.db"))
	})
}
