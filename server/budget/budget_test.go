package budget_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/workrail/workrail/server/budget"
)

const mib = 1 << 20

// Reservations past the budget wait in order; past the queue they are
// refused at once. The wait is long enough that the queued reservation
// is still waiting however slowly the test goroutine is scheduled.
func TestReserveQueuesThenRefuses(t *testing.T) {
	b := budget.New(12*mib, 1, time.Minute) // room for one 2 MiB bundle (12 MiB parsed)
	first, err := b.Reserve(t.Context(), 2*mib)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		release, err := b.Reserve(t.Context(), 1*mib) // waits for the first
		if err == nil {
			release()
		}
		got <- err
	}()
	queued(t, b, 1)
	if _, err := b.Reserve(t.Context(), 1*mib); !errors.Is(err, budget.ErrBusy) {
		t.Fatalf("a reservation past a full queue: %v, want ErrBusy", err)
	}
	select {
	case err := <-got:
		t.Fatalf("the queued reservation went ahead (%v) while the budget was spent", err)
	case <-time.After(50 * time.Millisecond):
	}
	first()
	if err := <-got; err != nil {
		t.Fatalf("the queued reservation after room was made: %v", err)
	}
}

// A reservation that waits its longest is refused.
func TestReserveRefusesAfterItsWait(t *testing.T) {
	b := budget.New(12*mib, 1, 200*time.Millisecond)
	hold, err := b.Reserve(context.Background(), 2*mib)
	if err != nil {
		t.Fatal(err)
	}
	defer hold()
	t0 := time.Now()
	if _, err := b.Reserve(t.Context(), 1); !errors.Is(err, budget.ErrBusy) || time.Since(t0) < 150*time.Millisecond {
		t.Fatalf("a reservation that waited its longest: %v after %v, want ErrBusy after 200ms", err, time.Since(t0))
	}
}

// queued waits until n reservations wait in b: a reservation made before
// then could take the queue's place instead of being refused.
func queued(t *testing.T, b *budget.Budget, n int64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); budget.Waiting(b) != n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d reservations wait after 10s, want %d", budget.Waiting(b), n)
		}
	}
}
