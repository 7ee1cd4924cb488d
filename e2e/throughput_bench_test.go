package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var throughputFor = flag.Duration("throughput", 30*time.Second, "how long BenchmarkMCPThroughput drives the daemon at each client count")

// BenchmarkMCPThroughput drives one daemon over its loopback HTTP MCP
// endpoint (/mcp behind the bearer token, as an HTTP-speaking client
// uses it) with 8 and then 32 clients at once for -throughput (default
// 30 s) each. Every client runs wr.hello to its end with notes, again and
// again; an op is one tools/call. It reports the calls answered a second
// and the median and p99 latency of a call. Each count is one timed run
// whatever b.N is, so ns/op is the wall time per call (1/throughput) and
// B/op and allocs/op are the clients' own per call.
func BenchmarkMCPThroughput(b *testing.B) {
	for _, n := range []int{8, 32} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			home := newHome(b)
			d := startDaemon(b, home)
			token, err := os.ReadFile(filepath.Join(home, "auth.token"))
			if err != nil {
				b.Fatal(err)
			}
			ep := &mcpEndpoint{
				url:   d.info.URL + "/mcp",
				token: strings.TrimSpace(string(token)),
				hc:    &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: n}},
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ResetTimer()
			lat, took, err := driveHTTP(ep, n, *throughputFor)
			b.StopTimer()
			runtime.ReadMemStats(&after)
			if err != nil {
				b.Fatal(err)
			}
			calls := float64(len(lat))
			b.ReportMetric(float64(took.Nanoseconds())/calls, "ns/op")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/calls, "B/op")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/calls, "allocs/op")
			b.ReportMetric(calls/took.Seconds(), "ops/s")
			b.ReportMetric(float64(quantile(lat, 0.5).Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(quantile(lat, 0.99).Microseconds())/1000, "p99-ms")
		})
	}
}

// driveHTTP runs clients goroutines against ep for the given time and returns
// the latency of every call answered, and how long they took in all. The
// first failure of any client stops them all.
func driveHTTP(ep *mcpEndpoint, clients int, span time.Duration) ([]time.Duration, time.Duration, error) {
	var (
		mu    sync.Mutex
		all   []time.Duration
		first error
		wg    sync.WaitGroup
	)
	stop := make(chan struct{})
	start := time.Now()
	deadline := start.Add(span)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, err := ep.runHellos(fmt.Sprintf("client %d", i), deadline, stop)
			mu.Lock()
			defer mu.Unlock()
			all = append(all, lat...)
			if err != nil && first == nil {
				first = fmt.Errorf("client %d: %w", i, err)
				close(stop)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	if first == nil && len(all) == 0 {
		first = errors.New("no call was answered")
	}
	return all, took, first
}

// mcpEndpoint is the daemon's HTTP MCP endpoint and its bearer token.
type mcpEndpoint struct {
	url, token string
	hc         *http.Client
}

// runHellos runs wr.hello to its end again and again until deadline (or
// stop), timing each tools/call.
func (ep *mcpEndpoint) runHellos(name string, deadline time.Time, stop <-chan struct{}) ([]time.Duration, error) {
	var lat []time.Duration
	tool, args := "start_workflow", map[string]any{"workflowId": "wr.hello"}
	for id := 1; time.Now().Before(deadline); id++ {
		select {
		case <-stop:
			return lat, nil
		default:
		}
		t0 := time.Now()
		sc, err := ep.call(id, tool, args)
		if err != nil {
			return lat, err
		}
		lat = append(lat, time.Since(t0))
		switch kind, _ := sc["kind"].(string); kind {
		case "step":
			next, _ := dig(sc, "nextCall", "arguments").(map[string]any)
			if next == nil {
				return lat, fmt.Errorf("%s: a step without nextCall.arguments: %v", tool, sc)
			}
			next["output"] = map[string]any{"notesMarkdown": name + " did " + str(sc, "pending", "stepId")}
			tool, args = "continue_workflow", next
		case "complete":
			tool, args = "start_workflow", map[string]any{"workflowId": "wr.hello"}
		default:
			return lat, fmt.Errorf("%s answered %q: %v", tool, kind, sc)
		}
	}
	return lat, nil
}

// call posts one tools/call and returns its structuredContent; the answer
// is JSON or an event stream.
func (ep *mcpEndpoint) call(id int, tool string, args map[string]any) (map[string]any, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, ep.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+ep.token)
	resp, err := ep.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %s", tool, resp.StatusCode, raw)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = lastData(raw)
	}
	var msg struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Result.StructuredContent == nil {
		return nil, fmt.Errorf("%s: no structuredContent in %q (%v)", tool, raw, err)
	}
	return msg.Result.StructuredContent, nil
}

// lastData is the data of the last event of an event stream.
func lastData(stream []byte) []byte {
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			data = bytes.Clone(bytes.TrimSpace(d))
		}
	}
	return data
}
