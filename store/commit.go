package store

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"

	"go.etcd.io/bbolt"
)

// committer is a group-commit writer. Requests that arrive while a commit is
// in flight share the next transaction (and its fsync); a lone request
// commits at once, with no batching delay.
type committer struct {
	db      *bbolt.DB
	changes atomic.Uint64 // committed transactions, for pollers
	reqs    chan *writeReq
	done    chan struct{} // closed to ask the loop to stop
	exited  chan struct{} // closed when the loop has stopped
}

type writeReq struct {
	fn  func(*bbolt.Tx) error
	err chan error
}

// maxGroup bounds how many requests share one transaction.
const maxGroup = 64

var errStopped = errors.New("store: closed")

func newCommitter(db *bbolt.DB) *committer {
	c := &committer{db: db, reqs: make(chan *writeReq, maxGroup), done: make(chan struct{}), exited: make(chan struct{})}
	go c.loop()
	return c
}

// update runs fn in a write transaction, possibly shared with others. fn
// may run more than once (after another request in its group failed), so it
// must not keep side effects outside the transaction from a failed run.
func (c *committer) update(fn func(*bbolt.Tx) error) error {
	r := &writeReq{fn: fn, err: make(chan error, 1)}
	select {
	case c.reqs <- r:
	case <-c.done:
		return errStopped
	}
	select {
	case err := <-r.err:
		return err
	case <-c.exited:
		return errStopped
	}
}

func (c *committer) loop() {
	defer close(c.exited)
	// A write that reads a damaged page past the mapped file faults; make
	// that a panic transact recovers, not a crash.
	debug.SetPanicOnFault(true)
	for {
		select {
		case r := <-c.reqs:
			c.run(c.gather(r))
		case <-c.done:
			return
		}
	}
}

// gather collects the requests already waiting, without waiting for more.
func (c *committer) gather(first *writeReq) []*writeReq {
	group := []*writeReq{first}
	for len(group) < maxGroup {
		select {
		case r := <-c.reqs:
			group = append(group, r)
		default:
			return group
		}
	}
	return group
}

func (c *committer) run(group []*writeReq) {
	err := c.transact(func(tx *bbolt.Tx) error {
		for _, r := range group {
			if err := r.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil || len(group) == 1 {
		for _, r := range group {
			r.err <- err
		}
		return
	}
	// One request failed and took the group down: run each alone so only
	// the failing one sees its error.
	for _, r := range group {
		r.err <- c.transact(r.fn)
	}
}

// transact runs one transaction. A panic in fn (a programmer bug) rolls the
// transaction back and fails only the requests in it, instead of taking the
// daemon and every other session down with the writer goroutine.
func (c *committer) transact(fn func(*bbolt.Tx) error) (err error) {
	defer func() {
		if err == nil {
			c.changes.Add(1)
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: write transaction panicked: %v", p)
		}
	}()
	return unwritable(c.db.Path(), c.db.Update(fn))
}

// stop ends the loop after the group in flight and waits for it.
func (c *committer) stop() {
	select {
	case <-c.done:
	default:
		close(c.done)
	}
	<-c.exited
}
