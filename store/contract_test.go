package store_test

import (
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
)

// The bbolt store passes the same contract as the in-memory one.
func TestContract(t *testing.T) {
	executetest.Contract(t, func(t *testing.T) executetest.Store { return mustOpen(t, filepath.Join(t.TempDir(), "w.db")) })
}
