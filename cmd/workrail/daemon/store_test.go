package daemon

import (
	"testing"
	"time"

	"github.com/workrail/workrail/store"
)

const day = 24 * time.Hour

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openAt opens the database at path with a clock the test moves.
func openAt(t *testing.T, path string, now *time.Time) *store.Store {
	t.Helper()
	st, err := store.Open(path, store.Options{Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
