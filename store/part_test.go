package store

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// texts are strings json.Marshal writes in every way it can: plain,
// escaped, HTML-escaped, past ASCII, invalid UTF-8, the line separators.
var texts = []string{"", "s1", "wr.contracts.gaps", `a "quoted" \ path`, "<b>&amp;</b>", "tab\there\nnew\r\x01\x1f",
	"café ☕", "bad \xff\xfe byte", "line\u2028sep\u2029", "🙂", "\x7f"}

func randomPart(rnd *rand.Rand) project.Part {
	text := func() string { return texts[rnd.IntN(len(texts))] }
	id := func() engine.NodeID { return engine.NodeID(rnd.IntN(3) * rnd.IntN(100_000)) }
	idx := func() engine.EventIndex { return engine.EventIndex(rnd.Uint64N(1 << 40)) }
	maybe := func() bool { return rnd.IntN(2) == 0 }
	indexes := func() []engine.EventIndex {
		var out []engine.EventIndex
		for range rnd.IntN(3) {
			out = append(out, idx())
		}
		return out
	}
	facts := func() project.Facts {
		var f project.Facts
		for range rnd.IntN(3) {
			o := project.OutputRef{At: idx(), Step: workflow.StepID(text()), Notes: maybe(), Supersedes: engine.EventID(text())}
			for range rnd.IntN(3) {
				o.Artifacts = append(o.Artifacts, text())
			}
			for range rnd.IntN(2) {
				o.Carried = append(o.Carried, project.CarriedGap{Severity: text(), Summary: text()})
			}
			f.Outputs = append(f.Outputs, o)
		}
		for range rnd.IntN(3) {
			f.Gaps = append(f.Gaps, project.GapRef{ID: engine.EventID(text()), At: idx(), Severity: event.GapSeverity(text()), Reason: event.GapReason(text()),
				Step: workflow.StepID(text()), Summary: text(), ResolvedBy: engine.EventIndex(rnd.IntN(2)) * idx(), ResolvedOn: id()})
		}
		f.Resolutions, f.Divergences, f.Traces = indexes(), indexes(), indexes()
		for range rnd.IntN(3) {
			f.Capabilities = append(f.Capabilities, project.CapabilityRef{At: idx(), Missing: maybe()})
		}
		return f
	}
	p := project.Part{Run: engine.RunID(1 + rnd.IntN(9)), Node: engine.NodeID(1 + rnd.IntN(1000)), Checkpoint: maybe(), From: id(), Head: id(),
		Step: workflow.StepID(text()), Branch: rnd.IntN(30), Next: id(), Depth: rnd.IntN(3) * rnd.IntN(2000), Continued: maybe(), Console: maybe(), Created: idx(),
		CreatedTime: event.Millis(rnd.IntN(2)) * event.Millis(idx()), Arrival: facts()}
	for range rnd.IntN(4) {
		p.At = append(p.At, run.Frame{Index: rnd.IntN(20), Iteration: rnd.IntN(3), Stop: maybe()})
	}
	for range rnd.IntN(4) {
		a := project.Attempt{Attempt: engine.Attempt(rnd.Uint32()), At: idx(), Time: event.Millis(idx()), Blocked: maybe(), To: id(), Facts: facts()}
		for range rnd.IntN(3) {
			a.Blockers = append(a.Blockers, event.BlockerCode(text()))
		}
		for range rnd.IntN(2) {
			a.Refused = append(a.Refused, project.Refusal{Code: event.NoticeCode(text()), Why: text()})
		}
		p.Attempts = append(p.Attempts, a)
	}
	return p
}

// encodePart writes what json.Marshal writes, and decodePart reads it as
// json.Unmarshal does, for parts holding every field and every kind of
// string.
func TestPartCodecIsJSON(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		p := randomPart(rnd)
		want, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		got := encodePart(&p)
		if !bytes.Equal(got, want) {
			t.Fatalf("part %d:\nencodePart  %s\njson.Marshal %s", i, got, want)
		}
		var a, b project.Part
		errA, errB := decodePart(got, &a), json.Unmarshal(got, &b)
		if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
			t.Fatalf("part %d: decodePart %+v (%v); json.Unmarshal %+v (%v)", i, a, errA, b, errB)
		}
	}
}

// FuzzDecodePart holds decodePart to json.Unmarshal on any bytes: the
// same part, or an error where it errs.
func FuzzDecodePart(f *testing.F) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		p := randomPart(rnd)
		f.Add(encodePart(&p))
	}
	f.Add([]byte(`{"run":"run_1","node":"node_2","at":[],"branch":-1,"unknown":{"a":[1]}}`))
	f.Add([]byte(`{"run":"run_1","node":"node_2","attempts":[{"attempt":1}],"attempts":[{"attempt":2}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a, want project.Part
		errA, errB := decodePart(b, &a), json.Unmarshal(b, &want)
		if (errA == nil) != (errB == nil) || (errA == nil && !reflect.DeepEqual(a, want)) {
			t.Fatalf("%q: decodePart %+v (%v); json.Unmarshal %+v (%v)", b, a, errA, want, errB)
		}
	})
}
