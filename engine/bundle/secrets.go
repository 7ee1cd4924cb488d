package bundle

import (
	"encoding/json"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	marker "github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/engine/run"
)

// SecretFinding is one field of a session's log or snapshots holding text
// a secret scanner matches: the event it is in (for a snapshot, the first
// node_created naming it), a JSON pointer into that event ("/data/…") or
// snapshot ("/snapshot/context/…"), and the rules that matched. Never
// the secret.
type SecretFinding struct {
	Index   engine.EventIndex `json:"eventIndex"`
	Pointer string            `json:"pointer"`
	Rules   []string          `json:"rules"`
}

// FindSecrets lists where the text an agent wrote into src (notes,
// artifacts, gap and divergence summaries, capability details, the
// copies of notes a fork recorded, context values in snapshots) holds a
// secret s matches, in log order.
func FindSecrets(src Source, s marker.Scanner) []SecretFinding {
	out, _ := scrub(src, s)
	return out
}

// ScrubSecrets is src with every secret FindSecrets lists replaced by its
// marker ([redacted: <rule>]). A snapshot that changes gets a new address,
// and the events naming it follow, so the result builds a bundle that
// verifies; importing it makes a new session without the secrets. src is
// not changed.
func ScrubSecrets(src Source, s marker.Scanner) (Source, []SecretFinding) {
	fs, out := scrub(src, s)
	return out, fs
}

func scrub(src Source, s marker.Scanner) ([]SecretFinding, Source) {
	var found []SecretFinding
	note := func(i engine.EventIndex, r *marker.Report) {
		for _, f := range r.Fields() {
			found = append(found, SecretFinding{Index: i, Pointer: f.Pointer, Rules: f.Rules})
		}
	}
	out := Source{Events: make([]event.Event, len(src.Events)), Snapshots: map[engine.SnapshotRef]run.Snapshot{}, Workflows: src.Workflows}
	moved := map[engine.SnapshotRef]engine.SnapshotRef{}
	for i, e := range src.Events {
		r := marker.New(s)
		e.Data = scrubPayload(r, e.Data)
		note(e.Index, r)
		if d, ok := e.Data.(*event.NodeCreatedData); ok {
			ref, done := moved[d.Snapshot]
			if !done {
				r := marker.New(s)
				ref = scrubSnapshot(r, src.Snapshots, d.Snapshot, out.Snapshots)
				moved[d.Snapshot] = ref
				note(e.Index, r)
			}
			if ref != d.Snapshot {
				c := *d
				c.Snapshot = ref
				e.Data = &c
			}
		}
		out.Events[i] = e
	}
	return found, out
}

// scrubSnapshot redacts the context of the snapshot at ref into out and
// returns its address there (ref when nothing changed, or when it is
// missing: Build then says so).
func scrubSnapshot(r *marker.Report, in map[engine.SnapshotRef]run.Snapshot, ref engine.SnapshotRef, out map[engine.SnapshotRef]run.Snapshot) engine.SnapshotRef {
	snap, ok := in[ref]
	if !ok {
		return ref
	}
	ctx := r.Context("/snapshot/context", snap.Context)
	if len(r.Fields()) == 0 {
		out[ref] = snap
		return ref
	}
	snap.Context = ctx
	_, d, err := canon.Digest(snap)
	if err != nil {
		out[ref] = in[ref] // not encodable either way: Build refuses it
		return ref
	}
	out[engine.SnapshotRef(d)] = snap
	return engine.SnapshotRef(d)
}

// scrubPayload returns p with the agent's text in it redacted, a copy
// when anything changed.
func scrubPayload(r *marker.Report, p event.Payload) event.Payload {
	switch d := p.(type) {
	case *event.NodeOutputAppendedData:
		c := *d
		c.NotesMarkdown = r.String("/data/notesMarkdown", d.NotesMarkdown)
		if d.Artifacts != nil {
			c.Artifacts = make([]json.RawMessage, len(d.Artifacts))
			for i, a := range d.Artifacts {
				c.Artifacts[i] = r.Raw("/data/artifacts/"+strconv.Itoa(i), a)
			}
		}
		return changed(r, d, &c)
	case *event.GapRecordedData:
		c := *d
		c.Summary = r.String("/data/summary", d.Summary)
		c.HowToResolve = r.String("/data/howToResolve", d.HowToResolve)
		return changed(r, d, &c)
	case *event.DivergenceRecordedData:
		c := *d
		c.Summary = r.String("/data/summary", d.Summary)
		return changed(r, d, &c)
	case *event.CapabilityObservedData:
		c := *d
		c.Detail = r.String("/data/detail", d.Detail)
		return changed(r, d, &c)
	case *event.AdvanceRecordedData:
		if d.Fork == nil {
			return d
		}
		c := *d
		f := *d.Fork
		f.Siblings = append([]event.Branch(nil), f.Siblings...)
		for i := range f.Siblings {
			f.Siblings[i].Summary = r.String("/data/fork/siblings/"+strconv.Itoa(i)+"/summary", f.Siblings[i].Summary)
		}
		f.Downstream.Entries = append([]event.RecapEntry(nil), f.Downstream.Entries...)
		for i := range f.Downstream.Entries {
			f.Downstream.Entries[i].NotesMarkdown = r.String("/data/fork/downstream/entries/"+strconv.Itoa(i)+"/notesMarkdown", f.Downstream.Entries[i].NotesMarkdown)
		}
		c.Fork = &f
		return changed(r, d, &c)
	}
	return p
}

// changed is the copy when r replaced anything, else the original.
func changed[T event.Payload](r *marker.Report, old, copied T) event.Payload {
	if len(r.Fields()) == 0 {
		return old
	}
	return copied
}
