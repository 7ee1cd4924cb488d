package store_test

import (
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
)

// TestEventsAfterReadsOnlyWhatWasAdded: the events after any index are
// the tail of the whole log, verified on from the chain digest stored
// there, with the health of the whole log.
func TestEventsAfterReadsOnlyWhatWasAdded(t *testing.T) {
	r := newRig(t, executetest.Long(t, 4))
	id := r.noted(t, "Said hello.").Session.SessionID
	all, h, err := r.store.Events(id)
	if err != nil || h.Status != execute.Healthy {
		t.Fatalf("Events: %v, %+v", err, h)
	}
	head := engine.EventIndex(len(all))
	for _, from := range []engine.EventIndex{0, 1, head / 2, head - 1, head} {
		got, h, err := r.store.EventsAfter(id, from)
		if err != nil {
			t.Fatalf("EventsAfter(%d): %v", from, err)
		}
		if h.Status != execute.Healthy || h.LastGood != head {
			t.Errorf("EventsAfter(%d): health %+v, want healthy up to %d", from, h, head)
		}
		if want := all[from:]; !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("EventsAfter(%d): %d events, want the last %d", from, len(got), len(want))
		}
	}
	// An index past the head has no digest to start from: the reader's
	// log is not this one.
	if _, h, err := r.store.EventsAfter(id, head+1); err != nil || h.Status == execute.Healthy {
		t.Errorf("EventsAfter past the head: %v, %+v; want an unhealthy answer", err, h)
	}
}
