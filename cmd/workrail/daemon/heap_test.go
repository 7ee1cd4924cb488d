package daemon

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, floor uint64
		want        int
	}{
		{0, HeapFloor, 400},         // before the first collection: Go's minimum becomes 16 MiB
		{1 * mib, HeapFloor, 400},   // 5 MiB by the live heap, 16 by the minimum
		{4 * mib, HeapFloor, 300},   // 4 × 4 = 16
		{6 * mib, HeapFloor, 166},   // 6 × 2.66 ≈ 16
		{8 * mib, HeapFloor, 100},   // twice live is the floor
		{100 * mib, HeapFloor, 100}, // Go's goal
		{0, 4 * mib, 100},           // a floor at Go's own minimum changes nothing
		{1 * mib, 4 * mib, 100},
	} {
		if got := gcPercent(c.live, c.floor); got != c.want {
			t.Errorf("gcPercent(%d MiB live, %d MiB floor) = %d, want %d", c.live/mib, c.floor/mib, got, c.want)
		}
	}
}

// KeepHeapFloor follows the live heap from one collection to the next:
// a small heap gets the floor's percent, a large one Go's 100.
func TestKeepHeapFloor(t *testing.T) {
	t.Setenv("GOGC", "") // the test command sets one, which would leave the percent alone
	KeepHeapFloor(HeapFloor)
	settles(t, func(live uint64) int { return gcPercent(live, HeapFloor) })
	held := make([]byte, 4*HeapFloor)
	settles(t, func(uint64) int { return 100 })
	runtime.KeepAlive(held)
}

// settles collects until the GC percent is want(live heap) after a
// collection, and fails after 10 s.
func settles(t *testing.T, want func(live uint64) int) {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/gogc:percent"}}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
		metrics.Read(s)
		live, got := s[0].Value.Uint64(), int(s[1].Value.Uint64())
		if got == want(live) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GC percent %d with %d bytes live, want %d", got, live, want(live))
		}
	}
}
