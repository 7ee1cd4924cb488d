package daemon

import (
	"context"
	"errors"
	"time"

	"github.com/workrail/workrail/store"
)

// The daemon sweeps soon after it starts (not at once: starting is busy
// enough), then every hour. Retention is counted in days, so an hour late
// is nothing; a sweep with nothing stale reads one small bucket.
const (
	firstSweep = time.Minute
	sweepEvery = time.Hour
)

// startSweeper deletes sessions nobody has written to for the retention
// period, in the background (store.Sweep). retentionDays is read before
// each sweep, so a changed setting applies at the next one; 0 or less
// deletes nothing. logf gets a line for each sweep that changed
// something, and for each failure. stop ends it, stopping a sweep in
// progress between two of its transactions, and returns once it has
// ended.
func startSweeper(st *store.Store, retentionDays func() int, logf func(string, ...any)) (stop func()) {
	return runSweeper(st, retentionDays, logf, firstSweep, sweepEvery)
}

func runSweeper(st *store.Store, retentionDays func() int, logf func(string, ...any), first, every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTimer(first)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			sweepOnce(ctx, st, retentionDays(), logf)
			t.Reset(every)
		}
	}()
	return func() {
		cancel()
		<-done
	}
}

// sweepOnce runs one sweep and says what it did.
func sweepOnce(ctx context.Context, st *store.Store, days int, logf func(string, ...any)) {
	res, err := st.Sweep(ctx, days)
	if err != nil && !errors.Is(err, context.Canceled) {
		logf("retention: sweep failed: %v", err)
	}
	if len(res.Deleted)+len(res.Kept)+res.Clocked+res.Snapshots+res.Workflows > 0 {
		logf("retention: %d days: deleted %d sessions, kept %d stale ones, started %d clocks, collected %d snapshots and %d pinned workflows",
			days, len(res.Deleted), len(res.Kept), res.Clocked, res.Snapshots, res.Workflows)
	}
	for _, k := range res.Kept {
		if k.Reason == store.KeptDamaged {
			logf("retention: kept stale %s: it is damaged (%s); see workrail doctor", k.Session, k.Detail)
		}
	}
	if res.Deferred != "" {
		logf("retention: collecting snapshots and pins deferred: %s", res.Deferred)
	}
}
