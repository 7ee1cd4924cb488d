package daemon

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/execute/executetest"
)

// The sweeper reads the retention setting before each sweep, so a
// setting changed while the daemon runs applies to the next sweep; it
// says what a sweep did, and stop ends it.
func TestSweeperAppliesTheRetentionItReadsEachTime(t *testing.T) {
	now := t0
	st := openAt(t, filepath.Join(t.TempDir(), "w.db"), &now)
	defer st.Close()
	ids := executetest.Sessions(t, st, 2, 2)
	now = t0.Add(61 * day)

	// Each read of the setting is announced; the first answers "off",
	// later ones 60 days.
	reads := make(chan int, 1000)
	var n int
	days := func() int {
		n++
		reads <- n
		if n == 1 {
			return 0
		}
		return 60
	}
	var mu sync.Mutex
	var logged []string
	logf := func(format string, args ...any) {
		mu.Lock()
		logged = append(logged, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	stop := runSweeper(st, days, logf, 0, time.Millisecond)
	<-reads
	<-reads // the first sweep, with retention off, has ended
	<-reads // and so has the second
	stop()
	for _, id := range ids {
		if _, err := st.Overview(id); !errors.Is(err, engine.ErrNotFound) {
			t.Fatalf("%s after a sweep of 60 days: %v; want it deleted", id, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(logged) == 0 || !strings.Contains(logged[0], "60 days: deleted 2 sessions") {
		t.Fatalf("logged %q; want one line saying 2 sessions were deleted", logged)
	}
}
