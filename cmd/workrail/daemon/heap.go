package daemon

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// HeapFloor is the least heap goal the daemon's collector works to. Go's
// own is 4 MiB, and a daemon that has just started holds about 2 MiB
// live: the 3 MiB that the first view of a long run's Console page
// allocates then ran one or two collections inside that request, a third
// of its time. Past 8 MiB live the goal is Go's usual one, twice the live
// heap, so a large home's daemon holds no more memory than before.
const HeapFloor = 16 << 20

// KeepHeapFloor keeps the collector's goal at floor bytes or twice the
// live heap, whichever is more: after each collection it sets the GC
// percent the live heap calls for (gcPercent). A GOGC in the environment
// is the operator's choice and is left alone.
func KeepHeapFloor(floor uint64) {
	if os.Getenv("GOGC") != "" {
		return
	}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	percent := 100
	var tune func(*gcCycle)
	tune = func(*gcCycle) {
		metrics.Read(live)
		if p := gcPercent(live[0].Value.Uint64(), floor); p != percent {
			debug.SetGCPercent(p)
			percent = p
		}
		// A finalizer runs once, after the collection that finds its
		// object unreachable: a new object for each cycle.
		runtime.SetFinalizer(&gcCycle{}, tune)
	}
	tune(nil)
}

// gcCycle is an object made to be collected. It holds a pointer so that
// the allocator never packs it with others (a finalizer on a packed
// object may never run).
type gcCycle struct{ _ *byte }

// gcPercent is the GC percent that makes the next goal floor bytes or
// twice live, whichever is more. The goal is the larger of live ×
// (1 + p/100) and Go's minimum, 4 MiB × p/100, so p never passes the
// percent at which that minimum alone is floor.
func gcPercent(live, floor uint64) int {
	const goMinimum = 4 << 20
	most := int(100 * floor / goMinimum)
	if live == 0 { // no collection yet: Go's minimum is the goal
		return max(100, most)
	}
	if 2*live >= floor {
		return 100
	}
	return max(100, min(most, int(100*(floor-live)/live)))
}
