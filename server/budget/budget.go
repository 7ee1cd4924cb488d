// Package budget owns the daemon's memory budget for imports: the bytes
// that reading and parsing bundles may hold at once, shared by the
// Console's previews and the import API, and the bounded queue of those
// waiting for room: what the transport's import API and the Console's
// previews both hold before reading a bundle. It imports nothing of the
// project.
package budget

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
)

// ParseFactor is what reading and parsing a bundle holds, as a multiple
// of its JSON: ten concurrent previews of a 27 MB bundle took the daemon
// from 288 MB to 1.78 GB, about 5.5 times each.
const ParseFactor = 6

// Defaults: one 32 MiB preview (the Console's largest) fills the budget;
// small imports run side by side.
const (
	DefaultBytes   = ParseFactor * 32 << 20
	DefaultWaiting = 8
	DefaultWait    = 30 * time.Second
)

// ErrBusy: the budget is spent and the queue full, or the wait ran out.
var ErrBusy = errors.New("budget: the daemon is busy with other imports")

// Budget is a memory budget with a bounded, first-come queue.
type Budget struct {
	sem        *semaphore.Weighted
	size       int64
	maxWaiting int64
	wait       time.Duration
	waiting    atomic.Int64
}

// New returns a budget of size bytes where at most maxWaiting requests
// wait, each at most wait.
func New(size int64, maxWaiting int, wait time.Duration) *Budget {
	return &Budget{sem: semaphore.NewWeighted(size), size: size, maxWaiting: int64(maxWaiting), wait: wait}
}

// Size is the budget's bytes.
func (b *Budget) Size() int64 { return b.size }

// Reserve holds room to read and parse a bundle of at most n bytes
// (ParseFactor times n, at most the whole budget) until release is
// called. Without room it waits behind those already waiting; with the
// queue full, or after waiting its longest, it fails with ErrBusy.
func (b *Budget) Reserve(ctx context.Context, n int64) (release func(), err error) {
	need := min(max(n, 1)*ParseFactor, b.size)
	release = func() { b.sem.Release(need) }
	if b.sem.TryAcquire(need) {
		return release, nil
	}
	if b.waiting.Add(1) > b.maxWaiting {
		b.waiting.Add(-1)
		return nil, ErrBusy
	}
	defer b.waiting.Add(-1)
	ctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(ctx, need); err != nil {
		return nil, ErrBusy
	}
	return release, nil
}
