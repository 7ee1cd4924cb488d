//go:build unix

package gitrepo_test

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/workrail/workrail/server/gitrepo"
)

// A workspace whose read hangs (its HEAD is a named pipe nobody writes,
// so opening it blocks) costs one read however many calls observe it:
// those during the read's timeout wait for it, those after skip it.
func TestObserverRunsOneReadOfAStuckWorkspace(t *testing.T) {
	base := layout(t, map[string]string{".git/refs/heads/main": sha1})
	head := filepath.Join(base, ".git", "HEAD")
	if err := syscall.Mkfifo(head, 0o644); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	// Opening the pipe for writing too releases the stuck read.
	t.Cleanup(func() {
		if f, err := os.OpenFile(head, os.O_RDWR, 0); err == nil {
			f.Close()
		}
		settle(t, before)
	})
	o := &gitrepo.Observer{Timeout: 100 * time.Millisecond}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := o.Observe(base); got != nil {
				t.Errorf("Observe of a stuck workspace = %+v", got)
			}
		})
	}
	wg.Wait()
	for range 3 {
		if got := o.Observe(base); got != nil {
			t.Errorf("Observe of a stuck workspace = %+v", got)
		}
	}
	settle(t, before+1)
}

// settle waits until at most want goroutines run, and fails if they do
// not settle there.
func settle(t *testing.T, want int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines run; want at most %d", runtime.NumGoroutine(), want)
		}
	}
}
