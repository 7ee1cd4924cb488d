package sources_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
)

// bound is how long a Catalog call may take in these tests before they
// fail instead of hanging.
const bound = 10 * time.Second

// catalogOf calls reg.Catalog(workspace) and fails the test if it does
// not return within bound.
func catalogOf(t *testing.T, reg *sources.Registry, workspace string) *catalog.Catalog {
	t.Helper()
	return await(t, startCatalog(reg, workspace), workspace)
}

// startCatalog calls reg.Catalog(workspace) on its own goroutine. While
// it runs, a heap over 512 MiB panics: a read without a bound (of
// /dev/zero, say) would otherwise take the machine down with the test.
func startCatalog(reg *sources.Registry, workspace string) <-chan *catalog.Catalog {
	out := make(chan *catalog.Catalog, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		out <- reg.Catalog(workspace)
	}()
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-finished:
				return
			case <-tick.C:
				var m runtime.MemStats
				if runtime.ReadMemStats(&m); m.HeapAlloc > 512<<20 {
					panic("Catalog(" + workspace + ") is reading without a bound: heap over 512 MiB")
				}
			}
		}
	}()
	return out
}

// await waits at most bound for the catalog of a call for workspace.
func await(t *testing.T, c <-chan *catalog.Catalog, workspace string) *catalog.Catalog {
	t.Helper()
	select {
	case cat := <-c:
		return cat
	case <-time.After(bound):
		t.Fatalf("Catalog(%q) did not return within %v", workspace, bound)
	case <-t.Context().Done():
		t.Fatal(t.Context().Err())
	}
	return nil
}
