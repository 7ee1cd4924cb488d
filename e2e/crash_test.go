package e2e

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// socketClient is an MCP client speaking streamable HTTP to the daemon's
// unix socket directly, the way the shim does, but without the shim's
// habit of restarting a daemon it cannot reach.
func socketClient(home string) (*client.Client, error) {
	sock := filepath.Join(home, "daemon.sock")
	hc := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		MaxIdleConnsPerHost: 16,
	}}
	c, err := client.NewStreamableHttpClient("http://localhost/mcp", transport.WithHTTPBasicClient(hc))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "workrail-e2e-crash", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize over %s: %w", sock, err)
	}
	return c, nil
}

// ackRecord is one advance whose answer reached the client.
type ackRecord struct {
	iter  int
	args  map[string]any // the continue_workflow call, tokens and notes
	raw   []byte         // structuredContent as first answered
	kind  string         // step or complete
	step  string         // pending step id of the answer
	state string         // stateToken of the answer
}

// startRecord is one start_workflow whose answer reached the client.
type startRecord struct {
	iter    int
	session string
	state   string
}

func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("crash-safety loop: skipped with -short")
	}
	// Each run kills at points of its own (the seed is the clock), so
	// 40 a run add up over runs; WORKRAIL_CRASH_ITERS for a longer one.
	iters := 40
	if s := os.Getenv("WORKRAIL_CRASH_ITERS"); s != "" {
		iters, _ = strconv.Atoi(s)
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("WORKRAIL_CRASH_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (rerun with WORKRAIL_CRASH_SEED=%d), %d iterations", seed, seed, iters)
	rng := rand.New(rand.NewSource(seed))

	home := newHome(t)
	var acks []ackRecord
	var starts []startRecord
	var afterKill map[string]int // doctor's event counts right after the last kill
	began := time.Now()
	var killedMidFlight int

	for it := 0; it <= iters; it++ {
		d, err := launchDaemon(home)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		c, err := socketClient(home)
		if err != nil {
			d.kill()
			t.Fatalf("iteration %d: %v", it, err)
		}

		// Verify everything acknowledged so far survived the kills: all of
		// the last iteration's advances and a sample of older ones (all of
		// them after the final kill).
		verify := acks
		if it < iters {
			verify = nil
			for _, a := range acks {
				if a.iter == it-1 || rng.Intn(40) == 0 {
					verify = append(verify, a)
				}
			}
		}
		if !verifyAcks(t, c, it, verify, starts) {
			c.Close()
			d.kill()
			t.FailNow()
		}
		if afterKill != nil {
			now := healthyDoctor(t, home).events()
			for s, n := range afterKill {
				if now[s] != n {
					t.Errorf("iteration %d: session %s had %d events after the kill, %d after replays and rehydrates", it, s, n, now[s])
				}
			}
			if len(now) != len(afterKill) {
				t.Errorf("iteration %d: %d sessions after the kill, %d after replays", it, len(afterKill), len(now))
			}
		}
		if it == iters || t.Failed() {
			c.Close()
			d.terminate(t)
			break
		}

		// Drive: several agents start runs and advance them with notes
		// until the daemon is killed under them.
		var killed atomic.Bool
		var mu sync.Mutex
		var wg sync.WaitGroup
		inFlight, acked := atomic.Int32{}, atomic.Int32{}
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, s := drive(t, c, it, w, &killed, &inFlight, &acked)
				mu.Lock()
				acks = append(acks, a...)
				starts = append(starts, s...)
				mu.Unlock()
			}()
		}
		// The kill lands at a random moment, but never before the daemon
		// has acknowledged an advance in this iteration: on a slow or busy
		// machine a fixed window could pass before the first answer.
		time.Sleep(time.Duration(rng.Intn(31)) * time.Millisecond)
		for deadline := time.Now().Add(10 * time.Second); acked.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		killed.Store(true)
		if inFlight.Load() > 0 {
			killedMidFlight++
		}
		d.kill()
		wg.Wait()
		c.Close()

		// With no daemon running, doctor opens the database read-only.
		rep := healthyDoctor(t, home)
		afterKill = rep.events()
		for _, s := range starts {
			if _, ok := afterKill[s.session]; !ok {
				t.Fatalf("iteration %d: acknowledged session %s is missing after the kill", it, s.session)
			}
		}
	}
	t.Logf("%d iterations in %v: %d acknowledged advances, %d runs started, %d kills landed with calls in flight",
		iters, time.Since(began).Round(time.Millisecond), len(acks), len(starts), killedMidFlight)
	if len(acks) < iters {
		t.Errorf("only %d acknowledged advances in %d iterations: the drive did not exercise the daemon", len(acks), iters)
	}
}

// drive is one agent: it starts wr.hello runs and advances them until a
// call fails, counting acknowledged advances in acked. Failures before the
// kill are test failures.
func drive(t *testing.T, c *client.Client, iter, worker int, killed *atomic.Bool, inFlight, acked *atomic.Int32) ([]ackRecord, []startRecord) {
	var acks []ackRecord
	var starts []startRecord
	callOnce := func(name string, args map[string]any) (result, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		inFlight.Add(1)
		r, err := tryCall(ctx, c, name, args)
		inFlight.Add(-1)
		if err != nil {
			if !killed.Load() {
				t.Errorf("iteration %d worker %d: %s before the kill: %v", iter, worker, name, err)
			}
			return r, false
		}
		if r.kind() == "error" {
			t.Errorf("iteration %d worker %d: %s: %s", iter, worker, name, r.Text)
			return r, false
		}
		return r, true
	}
	for n := 0; !killed.Load(); n++ {
		r, ok := callOnce("start_workflow", map[string]any{"workflowId": "wr.hello", "context": map[string]any{"worker": worker}})
		if !ok {
			return acks, starts
		}
		starts = append(starts, startRecord{iter: iter, session: str(r.S, "session", "sessionId"), state: str(r.S, "stateToken")})
		for r.kind() == "step" {
			args := map[string]any{
				"stateToken": str(r.S, "stateToken"),
				"ackToken":   str(r.S, "ackToken"),
				"output":     map[string]any{"notesMarkdown": fmt.Sprintf("iter %d worker %d run %d: did %s\n%s", iter, worker, n, str(r.S, "pending", "stepId"), strings.Repeat("x", 64*(n%8)))},
			}
			next, ok := callOnce("continue_workflow", args)
			if !ok {
				return acks, starts
			}
			acks = append(acks, ackRecord{iter: iter, args: args, raw: next.Raw, kind: next.kind(),
				step: str(next.S, "pending", "stepId"), state: str(next.S, "stateToken")})
			acked.Add(1)
			r = next
		}
	}
	return acks, starts
}

// verifyAcks replays each acknowledged advance (the same answer, byte for
// byte) and rehydrates where it led (the run is at or beyond that point:
// the node exists with the same pending step). It also rehydrates every run
// start of the last iteration.
func verifyAcks(t *testing.T, c *client.Client, iter int, acks []ackRecord, starts []startRecord) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, a := range acks {
		r, err := tryCall(ctx, c, "continue_workflow", a.args)
		if err != nil {
			t.Errorf("iteration %d: replay of an advance acknowledged in iteration %d: %v", iter, a.iter, err)
			return false
		}
		if !sameAnswer(r.Raw, a.raw) {
			t.Errorf("iteration %d: replay of an advance acknowledged in iteration %d differs:\nthen %s\nnow  %s", iter, a.iter, a.raw, r.Raw)
			return false
		}
		re, err := tryCall(ctx, c, "continue_workflow", map[string]any{"stateToken": a.state})
		if err != nil {
			t.Errorf("iteration %d: rehydrate: %v", iter, err)
			return false
		}
		if re.kind() != a.kind || str(re.S, "pending", "stepId") != a.step {
			t.Errorf("iteration %d: node acknowledged in iteration %d at %s/%q now rehydrates to %s/%q: %s",
				iter, a.iter, a.kind, a.step, re.kind(), str(re.S, "pending", "stepId"), re.Text)
			return false
		}
	}
	for _, s := range starts {
		if s.iter != iter-1 {
			continue
		}
		re, err := tryCall(ctx, c, "continue_workflow", map[string]any{"stateToken": s.state})
		if err != nil || re.kind() != "step" || str(re.S, "pending", "stepId") != "greet" {
			t.Errorf("iteration %d: start acknowledged in iteration %d (session %s) rehydrates to %v %s", iter, s.iter, s.session, err, re.Raw)
			return false
		}
	}
	return true
}
