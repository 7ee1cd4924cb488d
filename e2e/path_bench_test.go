package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// BenchmarkRequestPath measures, through one shim in one run, with raw
// JSON-RPC lines (no client library), what a call costs above the
// transport: `ping` (pipe, shim, unix socket, daemon, and back), a
// rehydrate, and an advance with notes, in runs of a user workflow ten
// steps long (a new run starts, untimed, every ten advances, so the notes
// a rehydrate recaps stay those of a typical run). An op is one of each,
// interleaved so that the machine's load weighs on all three alike. It reports each one's median and the ratios the request path is
// held to: rehydrate ≤ 1.5× ping, advance ≤ 2.5× ping.
func BenchmarkRequestPath(b *testing.B) {
	home := newHome(b)
	writeLongWorkflow(b, home, 11)
	startDaemon(b, home)
	p := startPipeShim(b, home)
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	p.notify(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	var st, ack string
	var ping, reh, adv []time.Duration
	timed := func(ds *[]time.Duration, msg string) []byte {
		t0 := time.Now()
		line := p.send(msg)
		*ds = append(*ds, time.Since(t0))
		return line
	}
	sample := func() {
		if len(adv)%10 == 0 {
			st, ack = p.start()
		}
		timed(&ping, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		timed(&reh, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"`+st+`"}}}`)
		line := timed(&adv, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"`+st+`","ackToken":"`+ack+`","output":{"notesMarkdown":"Read the three files and noted what each exports."}}}}`)
		st, ack = p.tokens(line)
	}
	for b.Loop() {
		sample()
	}
	for len(ping) < 300 {
		sample()
	}
	med := func(ds []time.Duration) float64 { return float64(quantile(ds, 0.5).Nanoseconds()) / 1e6 }
	b.ReportMetric(med(ping), "ping-ms")
	b.ReportMetric(med(reh), "rehydrate-ms")
	b.ReportMetric(med(adv), "advance-ms")
	b.ReportMetric(med(reh)/med(ping), "rehydrate/ping")
	b.ReportMetric(med(adv)/med(ping), "advance/ping")
	b.ReportMetric(float64(len(ping)), "samples")
}

// pipeShim is `workrail mcp` driven by JSON-RPC lines on its stdin.
type pipeShim struct {
	tb  testing.TB
	in  io.WriteCloser
	out *bufio.Reader
}

func startPipeShim(tb testing.TB, home string) *pipeShim {
	tb.Helper()
	cmd := exec.Command(bin, "mcp")
	cmd.Env, cmd.Dir = procEnv(home), home
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { in.Close(); cmd.Wait() })
	return &pipeShim{tb: tb, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// send writes one request and returns the line that answers it.
func (p *pipeShim) send(msg string) []byte {
	p.notify(msg)
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		p.tb.Fatalf("read answer to %s: %v", msg, err)
	}
	return line
}

func (p *pipeShim) notify(msg string) {
	if _, err := p.in.Write([]byte(msg + "\n")); err != nil {
		p.tb.Fatal(err)
	}
}

// start starts user.long and returns its tokens.
func (p *pipeShim) start() (stateToken, ackToken string) {
	return p.tokens(p.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"start_workflow","arguments":{"workflowId":"user.long"}}}`))
}

// tokens reads the next call's tokens from a step result's line.
func (p *pipeShim) tokens(line []byte) (stateToken, ackToken string) {
	var r struct {
		Result struct {
			StructuredContent struct {
				Kind       string `json:"kind"`
				StateToken string `json:"stateToken"`
				AckToken   string `json:"ackToken"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &r); err != nil || r.Result.StructuredContent.Kind != "step" {
		p.tb.Fatalf("not a step result (%v): %s", err, strconv.Quote(fmt.Sprintf("%.400s", line)))
	}
	return r.Result.StructuredContent.StateToken, r.Result.StructuredContent.AckToken
}
