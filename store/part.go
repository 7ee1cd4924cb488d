package store

import (
	"strconv"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/engine/workflow"
)

// A projection part is written with every advance (the new node's, and
// the one it was made from) and read, all of a run's, by every page that
// shows the run, so it is encoded and decoded without reflection:
// encodePart writes what json.Marshal writes, byte for byte, and
// decodePart reads it, handing anything else (a member it does not know,
// an escape or a byte past ASCII in a string, a value of another type)
// whole to json/v2 with encoding/json's semantics (its v1 API), as
// decodeNode does, whose result and errors are the part's.
// TestPartCodecIsJSON and FuzzDecodePart hold them to it.

// encodePart is json.Marshal(p).
func encodePart(p *project.Part) []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"run":`...)
	b = canon.AppendString(b, p.Run.String(), canon.GoHTML)
	b = append(b, `,"node":`...)
	b = canon.AppendString(b, p.Node.String(), canon.GoHTML)
	if p.Checkpoint {
		b = append(b, `,"checkpoint":true`...)
	}
	b = appendNode(b, "from", p.From)
	b = appendNode(b, "head", p.Head)
	if p.Step != "" {
		b = append(b, `,"step":`...)
		b = canon.AppendString(b, string(p.Step), canon.GoHTML)
	}
	if len(p.At) > 0 {
		b = append(b, `,"at":[`...)
		for i, f := range p.At {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFrame(b, f)
		}
		b = append(b, ']')
	}
	b = append(b, `,"branch":`...)
	b = strconv.AppendInt(b, int64(p.Branch), 10)
	b = appendNode(b, "next", p.Next)
	if p.Depth != 0 {
		b = append(b, `,"depth":`...)
		b = strconv.AppendInt(b, int64(p.Depth), 10)
	}
	if p.Continued {
		b = append(b, `,"continued":true`...)
	}
	if p.Console {
		b = append(b, `,"console":true`...)
	}
	b = append(b, `,"created":`...)
	b = strconv.AppendUint(b, uint64(p.Created), 10)
	b = appendUint(b, "createdTime", uint64(p.CreatedTime))
	b = appendUint(b, "linked", uint64(p.Linked))
	if len(p.Attempts) > 0 {
		b = append(b, `,"attempts":[`...)
		for i := range p.Attempts {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAttempt(b, &p.Attempts[i])
		}
		b = append(b, ']')
	}
	if !factsZero(&p.Arrival) {
		b = append(b, `,"arrival":`...)
		b = appendFacts(b, &p.Arrival)
	}
	return append(b, '}')
}

func appendFrame(b []byte, f run.Frame) []byte {
	b = append(b, `{"i":`...)
	b = strconv.AppendInt(b, int64(f.Index), 10)
	if f.Iteration != 0 {
		b = append(b, `,"n":`...)
		b = strconv.AppendInt(b, int64(f.Iteration), 10)
	}
	if f.Stop {
		b = append(b, `,"stop":true`...)
	}
	return append(b, '}')
}

func appendAttempt(b []byte, a *project.Attempt) []byte {
	b = append(b, `{"attempt":`...)
	b = strconv.AppendUint(b, uint64(a.Attempt), 10)
	b = append(b, `,"at":`...)
	b = strconv.AppendUint(b, uint64(a.At), 10)
	b = appendUint(b, "time", uint64(a.Time))
	if a.Blocked {
		b = append(b, `,"blocked":true`...)
	}
	if len(a.Blockers) > 0 {
		b = append(b, `,"blockers":[`...)
		for i, c := range a.Blockers {
			if i > 0 {
				b = append(b, ',')
			}
			b = canon.AppendString(b, string(c), canon.GoHTML)
		}
		b = append(b, ']')
	}
	b = appendNode(b, "to", a.To)
	if len(a.Refused) > 0 {
		b = append(b, `,"refused":[`...)
		for i, r := range a.Refused {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"code":`...)
			b = canon.AppendString(b, string(r.Code), canon.GoHTML)
			b = append(b, `,"why":`...)
			b = canon.AppendString(b, r.Why, canon.GoHTML)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if !factsZero(&a.Facts) {
		b = append(b, `,"facts":`...)
		b = appendFacts(b, &a.Facts)
	}
	return append(b, '}')
}

func factsZero(f *project.Facts) bool {
	return f.Outputs == nil && f.Gaps == nil && f.Resolutions == nil && f.Divergences == nil && f.Capabilities == nil && f.Traces == nil
}

func appendFacts(b []byte, f *project.Facts) []byte {
	b = append(b, '{')
	first := true
	member := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":[`...)
	}
	if len(f.Outputs) > 0 {
		member("outputs")
		for i := range f.Outputs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOutput(b, &f.Outputs[i])
		}
		b = append(b, ']')
	}
	if len(f.Gaps) > 0 {
		member("gaps")
		for i := range f.Gaps {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendGap(b, &f.Gaps[i])
		}
		b = append(b, ']')
	}
	for _, l := range []struct {
		name string
		at   []engine.EventIndex
	}{{"resolutions", f.Resolutions}, {"divergences", f.Divergences}} {
		if len(l.at) > 0 {
			member(l.name)
			b = appendIndexes(b, l.at)
		}
	}
	if len(f.Capabilities) > 0 {
		member("capabilities")
		for i, c := range f.Capabilities {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"at":`...)
			b = strconv.AppendUint(b, uint64(c.At), 10)
			if c.Missing {
				b = append(b, `,"missing":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(f.Traces) > 0 {
		member("traces")
		b = appendIndexes(b, f.Traces)
	}
	return append(b, '}')
}

func appendIndexes(b []byte, at []engine.EventIndex) []byte {
	for i, x := range at {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(x), 10)
	}
	return append(b, ']')
}

func appendOutput(b []byte, o *project.OutputRef) []byte {
	b = append(b, `{"at":`...)
	b = strconv.AppendUint(b, uint64(o.At), 10)
	b = append(b, `,"step":`...)
	b = canon.AppendString(b, string(o.Step), canon.GoHTML)
	if o.Notes {
		b = append(b, `,"notes":true`...)
	}
	if len(o.Artifacts) > 0 {
		b = append(b, `,"artifacts":[`...)
		for i, k := range o.Artifacts {
			if i > 0 {
				b = append(b, ',')
			}
			b = canon.AppendString(b, k, canon.GoHTML)
		}
		b = append(b, ']')
	}
	if len(o.Carried) > 0 {
		b = append(b, `,"carried":[`...)
		for i, c := range o.Carried {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if c.Severity != "" {
				b = append(b, `"severity":`...)
				b = canon.AppendString(b, c.Severity, canon.GoHTML)
				b = append(b, ',')
			}
			b = append(b, `"summary":`...)
			b = canon.AppendString(b, c.Summary, canon.GoHTML)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if o.Supersedes != "" {
		b = append(b, `,"supersedes":`...)
		b = canon.AppendString(b, string(o.Supersedes), canon.GoHTML)
	}
	return append(b, '}')
}

func appendGap(b []byte, g *project.GapRef) []byte {
	b = append(b, `{"id":`...)
	b = canon.AppendString(b, string(g.ID), canon.GoHTML)
	b = append(b, `,"at":`...)
	b = strconv.AppendUint(b, uint64(g.At), 10)
	b = append(b, `,"severity":`...)
	b = canon.AppendString(b, string(g.Severity), canon.GoHTML)
	b = append(b, `,"reason":`...)
	b = canon.AppendString(b, string(g.Reason), canon.GoHTML)
	if g.Step != "" {
		b = append(b, `,"step":`...)
		b = canon.AppendString(b, string(g.Step), canon.GoHTML)
	}
	if g.Summary != "" {
		b = append(b, `,"summary":`...)
		b = canon.AppendString(b, g.Summary, canon.GoHTML)
	}
	b = appendUint(b, "resolvedBy", uint64(g.ResolvedBy))
	b = appendNode(b, "resolvedOn", g.ResolvedOn)
	return append(b, '}')
}

func appendNode(b []byte, name string, n engine.NodeID) []byte {
	if n == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":"node_`...)
	b = strconv.AppendUint(b, uint64(n), 10)
	return append(b, '"')
}

func appendUint(b []byte, name string, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendUint(b, v, 10)
}

// decodePart reads a part as json.Unmarshal does.
func decodePart(b []byte, p *project.Part) error {
	if fastPart(b, p) {
		return nil
	}
	*p = project.Part{}
	return jsonv1.Unmarshal(b, p)
}

func fastPart(b []byte, p *project.Part) bool {
	r := nodeReader{in: b}
	return r.object(func(key []byte) bool { return r.partMember(key, p) }) && r.i == len(b)
}

// object reads {"key": value, …}, each value by member.
func (r *nodeReader) object(member func(key []byte) bool) bool {
	if !r.byte('{') {
		return false
	}
	if r.byte('}') {
		return true
	}
	for {
		key, ok := r.str()
		if !ok || !r.byte(':') || !member(key) {
			return false
		}
		if r.byte('}') {
			return true
		}
		if !r.byte(',') {
			return false
		}
	}
}

func (r *nodeReader) partMember(key []byte, p *project.Part) bool {
	switch string(key) {
	case "run":
		return r.text(&p.Run)
	case "node":
		return r.text(&p.Node)
	case "checkpoint":
		return r.boolean(&p.Checkpoint)
	case "from":
		return r.text(&p.From)
	case "head":
		return r.text(&p.Head)
	case "step":
		return r.stepID(&p.Step)
	case "at":
		return r.array(func() bool {
			var f run.Frame
			ok := r.object(func(k []byte) bool { return r.frameMember(k, &f) })
			p.At = append(p.At, f)
			return ok
		}, p.At == nil)
	case "branch":
		v, ok := r.uint(31)
		p.Branch = int(v)
		return ok
	case "next":
		return r.text(&p.Next)
	case "depth":
		v, ok := r.uint(31)
		p.Depth = int(v)
		return ok
	case "continued":
		return r.boolean(&p.Continued)
	case "console":
		return r.boolean(&p.Console)
	case "created":
		return uint64Into(r, &p.Created)
	case "createdTime":
		return uint64Into(r, &p.CreatedTime)
	case "linked":
		return uint64Into(r, &p.Linked)
	case "attempts":
		return r.array(func() bool {
			p.Attempts = append(p.Attempts, project.Attempt{}) // read in place: an Attempt is large
			a := &p.Attempts[len(p.Attempts)-1]
			return r.object(func(k []byte) bool { return r.attemptMember(k, a) })
		}, p.Attempts == nil)
	case "arrival":
		return r.object(func(k []byte) bool { return r.factsMember(k, &p.Arrival) })
	}
	return false
}

func (r *nodeReader) frameMember(key []byte, f *run.Frame) bool {
	switch string(key) {
	case "i":
		v, ok := r.uint(31)
		f.Index = int(v)
		return ok
	case "n":
		v, ok := r.uint(31)
		f.Iteration = int(v)
		return ok
	case "stop":
		return r.boolean(&f.Stop)
	}
	return false
}

func (r *nodeReader) attemptMember(key []byte, a *project.Attempt) bool {
	switch string(key) {
	case "attempt":
		v, ok := r.uint(32)
		a.Attempt = engine.Attempt(v)
		return ok
	case "at":
		return uint64Into(r, &a.At)
	case "time":
		return uint64Into(r, &a.Time)
	case "blocked":
		return r.boolean(&a.Blocked)
	case "blockers":
		return r.array(func() bool {
			s, ok := r.str()
			a.Blockers = append(a.Blockers, event.BlockerCode(s))
			return ok
		}, a.Blockers == nil)
	case "to":
		return r.text(&a.To)
	case "refused":
		return r.array(func() bool {
			var x project.Refusal
			ok := r.object(func(k []byte) bool {
				switch string(k) {
				case "code":
					s, ok := r.str()
					x.Code = event.NoticeCode(s)
					return ok
				case "why":
					return r.string(&x.Why)
				}
				return false
			})
			a.Refused = append(a.Refused, x)
			return ok
		}, a.Refused == nil)
	case "facts":
		return r.object(func(k []byte) bool { return r.factsMember(k, &a.Facts) })
	}
	return false
}

func (r *nodeReader) factsMember(key []byte, f *project.Facts) bool {
	switch string(key) {
	case "outputs":
		return r.array(func() bool {
			var o project.OutputRef
			ok := r.object(func(k []byte) bool { return r.outputMember(k, &o) })
			f.Outputs = append(f.Outputs, o)
			return ok
		}, f.Outputs == nil)
	case "gaps":
		return r.array(func() bool {
			var g project.GapRef
			ok := r.object(func(k []byte) bool { return r.gapMember(k, &g) })
			f.Gaps = append(f.Gaps, g)
			return ok
		}, f.Gaps == nil)
	case "resolutions":
		return f.Resolutions == nil && r.indexes(&f.Resolutions)
	case "divergences":
		return f.Divergences == nil && r.indexes(&f.Divergences)
	case "capabilities":
		return r.array(func() bool {
			var c project.CapabilityRef
			ok := r.object(func(k []byte) bool {
				switch string(k) {
				case "at":
					return uint64Into(r, &c.At)
				case "missing":
					return r.boolean(&c.Missing)
				}
				return false
			})
			f.Capabilities = append(f.Capabilities, c)
			return ok
		}, f.Capabilities == nil)
	case "traces":
		return f.Traces == nil && r.indexes(&f.Traces)
	}
	return false
}

func (r *nodeReader) outputMember(key []byte, o *project.OutputRef) bool {
	switch string(key) {
	case "at":
		return uint64Into(r, &o.At)
	case "step":
		return r.stepID(&o.Step)
	case "notes":
		return r.boolean(&o.Notes)
	case "artifacts":
		return r.array(func() bool {
			var s string
			ok := r.string(&s)
			o.Artifacts = append(o.Artifacts, s)
			return ok
		}, o.Artifacts == nil)
	case "carried":
		return r.array(func() bool {
			var c project.CarriedGap
			ok := r.object(func(k []byte) bool {
				switch string(k) {
				case "severity":
					return r.string(&c.Severity)
				case "summary":
					return r.string(&c.Summary)
				}
				return false
			})
			o.Carried = append(o.Carried, c)
			return ok
		}, o.Carried == nil)
	case "supersedes":
		s, ok := r.str()
		o.Supersedes = engine.EventID(s)
		return ok
	}
	return false
}

func (r *nodeReader) gapMember(key []byte, g *project.GapRef) bool {
	switch string(key) {
	case "id":
		s, ok := r.str()
		g.ID = engine.EventID(s)
		return ok
	case "at":
		return uint64Into(r, &g.At)
	case "severity":
		s, ok := r.str()
		g.Severity = event.GapSeverity(s)
		return ok
	case "reason":
		s, ok := r.str()
		g.Reason = event.GapReason(s)
		return ok
	case "step":
		return r.stepID(&g.Step)
	case "summary":
		return r.string(&g.Summary)
	case "resolvedBy":
		return uint64Into(r, &g.ResolvedBy)
	case "resolvedOn":
		return r.text(&g.ResolvedOn)
	}
	return false
}

func (r *nodeReader) boolean(dst *bool) bool {
	switch {
	case len(r.in)-r.i >= 4 && string(r.in[r.i:r.i+4]) == "true":
		r.i += 4
		*dst = true
		return true
	case len(r.in)-r.i >= 5 && string(r.in[r.i:r.i+5]) == "false":
		r.i += 5
		*dst = false
		return true
	}
	return false
}

func (r *nodeReader) string(dst *string) bool {
	s, ok := r.str()
	*dst = string(s)
	return ok
}

func (r *nodeReader) stepID(dst *workflow.StepID) bool {
	s, ok := r.str()
	*dst = workflow.StepID(s)
	return ok
}
