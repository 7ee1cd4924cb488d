package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/execute"
	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/engine/workflow"
	"github.com/workrail/workrail/server/secrets"
)

// benchNotes are 2 KB notes as agents write them: prose about code, URL
// paths next to the words "key" and "token" on every line, and code with
// assignments (the hard cases for gitleaks' generic rule).
var benchNotes = map[string]string{
	"prose": note("## Reviewed the parser\n" +
		"- Read `engine/protocol/input.go` and `engine/execute/advance.go`: unknown keys are refused before decoding, with a did-you-mean.\n" +
		"- The notes limit (32 KiB) is checked in ParseContinue; artifacts are counted but not sized, which is fine under the 256 KiB call limit.\n" +
		"- Ran `go test ./engine/...`: every package passes in about 10 s on two cores.\n" +
		"- The key ring signs with the active key and verifies with every older one, so a rotation keeps old tokens working.\n" +
		"- Next: look at how a replay compares outputs, then write the test for a rewound chat.\n"),
	"urls": note("- `func (s *Service) advance(n node, attempt engine.Attempt)` returns the key and token; see store/commit.go:42 and https://github.com/org/repo/pull/17.\n"),
	"pasted": note("Pasted the failing config:\n```env\nAPP_ENV=production\nDB_HOST=db.internal\nDB_PORT=5432\nLOG_LEVEL=debug\n```\n" +
		"The secret's data was `QVBQX0VOVj1wcm9kdWN0aW9uCkxPR19MRVZFTD1kZWJ1Zwo=` and the request `{\"region\": \"eu-west-1\", \"bucket\": \"uploads\", \"key\": \"2024/report.pdf\"}`;\n" +
		"commit 68b5267a3c9f1e2d4b5a6c7d8e9f0a1b2c3d4e5f, url https://example.com/search?q=hello%20world%21&lang=en.\n"),
	"code": note("Changed the retry loop:\n```go\ncfg.Timeout = defaultTimeoutSeconds\nclient := newHTTPClient(cfg)\nresp, err := client.Do(req) // the token is refreshed before\nif err != nil { return fmt.Errorf(\"fetch: %w\", err) }\n```\n"),
}

func note(para string) string { return strings.Repeat(para, 2048/len(para)+1)[:2048] }

// BenchmarkAdvanceNote is BenchmarkAdvance with a 2 KB note, without and
// with the secret scanner the daemon runs; store=mem is the same over the
// in-memory store, without the fsync whose spread hides the difference.
func BenchmarkAdvanceNote(b *testing.B) {
	scanners := []struct {
		name string
		s    redact.Scanner
	}{{"none", redact.None{}}, {"gitleaks", secrets.MustNew()}}
	for _, kind := range []string{"bbolt", "mem"} {
		for _, n := range []string{"prose", "urls", "code"} {
			for _, sc := range scanners {
				b.Run("store="+kind+"/note="+n+"/scanner="+sc.name, func(b *testing.B) {
					benchAdvanceNote(b, kind, benchNotes[n], sc.s)
				})
			}
		}
	}
}

func benchAdvanceNote(b *testing.B, kind, notes string, sc redact.Scanner) {
	wf := executetest.Long(b, b.N+1)
	var st execute.Store = memstore.New()
	if kind == "bbolt" {
		st = newRig(b, wf).store
	}
	x := execute.New(st, executetest.Ring(b), wf, workflow.Preferences{}, executetest.Clock, b.Logf, execute.WithSecrets(sc))
	start, _ := json.Marshal(map[string]any{"workflowId": "wr.long"})
	s, ok := x.Start(context.Background(), start).(protocol.StepResult)
	if !ok {
		b.Fatal("start failed")
	}
	args := noteArgs(b, s, notes)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step, ok := x.Continue(context.Background(), args).(protocol.StepResult)
		if !ok {
			b.Fatalf("advance %d failed", i)
		}
		args = noteArgs(b, step, notes)
	}
}

// BenchmarkScan is the scanner alone on the same notes, and on one of
// pasted config with base64, a URL's percent-encoding and a commit (what
// the decoder decodes, or tries to). cpu-ns/op is the process's CPU time
// per scan: on a machine shared with other work, ns/op counts the time
// spent waiting for a core too.
func BenchmarkScan(b *testing.B) {
	s := secrets.MustNew()
	for _, n := range []string{"prose", "urls", "code", "pasted"} {
		b.Run("note="+n, func(b *testing.B) {
			cpu := cpuNow(b)
			for b.Loop() {
				s.Scan(benchNotes[n])
			}
			b.ReportMetric(float64(cpuNow(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

func noteArgs(tb testing.TB, s protocol.StepResult, notes string) []byte {
	a := s.NextCall.Arguments
	a.Output = &protocol.Output{NotesMarkdown: notes}
	b, err := json.Marshal(a)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
