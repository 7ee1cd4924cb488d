package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
)

// depthWindow is how many consecutive advances of one session a depth
// benchmark times before it starts the next session.
const depthWindow = 50

// BenchmarkAdvanceDepth measures a continue_workflow advance with notes
// through a warm shim (real MCP client, shim process, daemon, fsync) early
// in a session and 500 steps in: per-call work must not grow with the
// session. An op at step=S is one advance recording the output of step S
// to S+49 of a 600-step workflow; the advances that bring a new session
// to step S are not timed. It reports the median and p99 of the ops.
func BenchmarkAdvanceDepth(b *testing.B) {
	home := newHome(b)
	writeLongWorkflow(b, home, depthWindow+500+10)
	c := startShim(b, home)
	for _, at := range []int{5, 500} {
		b.Run(fmt.Sprintf("step=%d", at), func(b *testing.B) {
			d := &deepAdvancer{tb: b, c: c, from: at}
			var ds []time.Duration
			for b.Loop() {
				b.StopTimer()
				d.ensure()
				b.StartTimer()
				t0 := time.Now()
				d.next()
				ds = append(ds, time.Since(t0))
			}
			b.ReportMetric(float64(quantile(ds, 0.5).Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(quantile(ds, 0.99).Microseconds())/1000, "p99-ms")
		})
	}
}

// deepAdvancer keeps a user.long session whose next advance records the
// output of a step in [from, from+depthWindow).
type deepAdvancer struct {
	tb   testing.TB
	c    *client.Client
	from int
	cur  result
	step int // the step the next advance records, from 1
}

// ensure starts a new session and advances it to step from when there is
// none or the current one has left the window.
func (d *deepAdvancer) ensure() {
	if d.step >= d.from && d.step < d.from+depthWindow {
		return
	}
	d.cur = call(d.tb, d.c, "start_workflow", map[string]any{"workflowId": "user.long"})
	mustKind(d.tb, d.cur, "step")
	for d.step = 1; d.step < d.from; {
		d.next()
	}
}

func (d *deepAdvancer) next() {
	d.cur = advance(d.tb, d.c, d.cur, fmt.Sprintf("step %d done", d.step))
	mustKind(d.tb, d.cur, "step")
	d.step++
}
