package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	marker "github.com/workrail/workrail/engine/redact"
	"github.com/workrail/workrail/engine/run"
)

// Redaction is the closed set of how much of a session an export leaves
// out. A bundle says which in session.redaction.
type Redaction string

// Redactions.
const (
	// RedactNone: the session as it is.
	RedactNone Redaction = "none"
	// RedactNotes: every note body reads RedactedMarker.
	RedactNotes Redaction = "notes"
	// RedactAll: every text an agent or a person wrote, every context
	// value and every observation is masked (see redactAll); what is
	// kept is the session's structure.
	RedactAll Redaction = "all"
)

// Redactions lists the redaction levels, from the least.
func Redactions() []Redaction { return []Redaction{RedactNone, RedactNotes, RedactAll} }

// valid reports whether r is one of Redactions.
func (r Redaction) valid() bool { return r == RedactNone || r == RedactNotes || r == RedactAll }

// redactNotes returns evs with every note body replaced by RedactedMarker:
// outputs' notes, and the copies of notes that advances recorded for a
// fork's picture (branch summaries and the recap). Empty notes stay
// empty, so what was said is hidden but not whether something was. The
// events given are not changed.
func redactNotes(evs []event.Event) []event.Event {
	out := make([]event.Event, len(evs))
	for i, e := range evs {
		switch d := e.Data.(type) {
		case *event.NodeOutputAppendedData:
			c := *d
			c.NotesMarkdown = marked(c.NotesMarkdown)
			e.Data = &c
		case *event.AdvanceRecordedData:
			if d.Fork != nil {
				c := *d
				c.Fork = redactFork(*d.Fork)
				e.Data = &c
			}
		}
		out[i] = e
	}
	return out
}

func redactFork(f event.Fork) *event.Fork {
	f.Siblings = append([]event.Branch(nil), f.Siblings...)
	for i := range f.Siblings {
		f.Siblings[i].Summary = marked(f.Siblings[i].Summary)
	}
	f.Downstream.Entries = append([]event.RecapEntry(nil), f.Downstream.Entries...)
	for i := range f.Downstream.Entries {
		f.Downstream.Entries[i].NotesMarkdown = marked(f.Downstream.Entries[i].NotesMarkdown)
	}
	return &f
}

// redactAll masks everything free-form in a session: every payload
// through maskPayload, every node snapshot through maskSnapshot, and the
// object keys they keep that keys finds secrets in (none when keys is
// nil). A masked snapshot has a new address, so the node_created events
// name it (two snapshots that mask alike become one). It returns the new
// events and snapshots; the ones given are not changed.
func redactAll(evs []event.Event, snaps map[engine.SnapshotRef]run.Snapshot, keys marker.Scanner) ([]event.Event, map[engine.SnapshotRef]run.Snapshot, error) {
	m := masker{keys: keys}
	refs := map[engine.SnapshotRef]engine.SnapshotRef{}
	masked := map[engine.SnapshotRef]run.Snapshot{}
	for _, e := range evs {
		d, ok := e.Data.(*event.NodeCreatedData)
		if !ok || refs[d.Snapshot] != (engine.SnapshotRef{}) {
			continue
		}
		s, ok := snaps[d.Snapshot]
		if !ok {
			return nil, nil, fmt.Errorf("bundle: redact: snapshot %s: %w", d.Snapshot, engine.ErrNotFound)
		}
		ms := m.snapshot(s)
		_, digest, err := canon.Digest(ms)
		if err != nil {
			return nil, nil, fmt.Errorf("bundle: redact: snapshot %s: %w", d.Snapshot, err)
		}
		refs[d.Snapshot] = engine.SnapshotRef(digest)
		masked[engine.SnapshotRef(digest)] = ms
	}
	out := make([]event.Event, len(evs))
	for i, e := range evs {
		p, err := m.payload(e.Data, refs)
		if err != nil {
			return nil, nil, fmt.Errorf("bundle: redact: event %d: %w", e.Index, err)
		}
		e.Data = p
		out[i] = e
	}
	return out, masked, nil
}

// masker masks what redactAll masks; keys, when set, finds the secrets
// in the object keys a mask keeps.
type masker struct{ keys marker.Scanner }

// value is v masked (mask), its keys holding secrets replaced first.
func (m masker) value(v any) any {
	if m.keys != nil {
		v = marker.New(m.keys).Value("", v)
	}
	return mask(v)
}

// payload is p with everything free-form masked and its snapshot
// reference renamed by refs. Every kind of event is named here, the ones
// kept whole too, so a kind added later is refused until someone decides
// what of it is shared.
func (m masker) payload(p event.Payload, refs map[engine.SnapshotRef]engine.SnapshotRef) (event.Payload, error) {
	switch d := p.(type) {
	case *event.SessionCreatedData:
		c := *d
		c.WorkspacePath = "" // a path; empty, not masked, so nothing reads "[redacted]" as a folder
		return &c, nil
	case *event.ObservationRecordedData:
		c := *d
		c.Value = marked(c.Value)
		return &c, nil
	case *event.NodeCreatedData:
		c := *d
		if to, ok := refs[d.Snapshot]; ok {
			c.Snapshot = to
		}
		return &c, nil
	case *event.NodeOutputAppendedData:
		return m.output(d)
	case *event.CapabilityObservedData:
		c := *d
		c.Detail = marked(c.Detail)
		return &c, nil
	case *event.GapRecordedData:
		c := *d
		c.Summary, c.HowToResolve = marked(c.Summary), marked(c.HowToResolve)
		return &c, nil
	case *event.DivergenceRecordedData:
		c := *d
		c.Summary = marked(c.Summary)
		return &c, nil
	case *event.DecisionTraceAppendedData:
		c := *d
		c.Summary = marked(c.Summary)
		return &c, nil
	case *event.AdvanceRecordedData:
		return maskAdvance(d), nil
	case *event.RunStartedData:
		if d.Repo == (event.RepoPin{}) {
			return p, nil
		}
		c := *d // a repository's address names a host, as an observation does; its commit is a version
		c.Repo.URL = marked(c.Repo.URL)
		return &c, nil
	case *event.EdgeCreatedData, *event.PreferencesChangedData:
		return p, nil // ids, closed sets and structure only
	}
	return nil, fmt.Errorf("no redaction rule for a %T", p)
}

// output masks an output's notes and every artifact.
func (m masker) output(d *event.NodeOutputAppendedData) (event.Payload, error) {
	c := *d
	c.NotesMarkdown = marked(c.NotesMarkdown)
	if d.Artifacts != nil {
		c.Artifacts = make([]json.RawMessage, len(d.Artifacts))
		for i, a := range d.Artifacts {
			ma, err := m.artifact(a)
			if err != nil {
				return nil, fmt.Errorf("artifact %d: %w", i, err)
			}
			c.Artifacts[i] = ma
		}
	}
	return &c, nil
}

// artifact masks every value of an artifact but its top-level "kind"
// (when it is a string), which names its contract: the artifact keeps
// its shape (keys, types, list lengths) and says nothing of what was in
// it.
func (m masker) artifact(a json.RawMessage) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(a))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return json.Marshal(m.value(v))
	}
	out := m.value(obj).(map[string]any)
	if kind, ok := obj["kind"].(string); ok {
		out["kind"] = kind
	}
	return json.Marshal(out)
}

// maskAdvance masks the texts an advance recorded: its notices' and
// blockers' messages (which may quote what the agent sent) and the notes
// of a fork's picture. Codes, pointers, skips and loop exits are kept.
func maskAdvance(d *event.AdvanceRecordedData) *event.AdvanceRecordedData {
	c := *d
	if d.Notices != nil {
		c.Notices = make([]event.Notice, len(d.Notices))
		for i, n := range d.Notices {
			n.Message = marked(n.Message)
			c.Notices[i] = n
		}
	}
	if d.Blockers != nil {
		c.Blockers = make([]event.Blocker, len(d.Blockers))
		for i, b := range d.Blockers {
			b.Message, b.SuggestedFix = marked(b.Message), marked(b.SuggestedFix)
			c.Blockers[i] = b
		}
	}
	if d.Fork != nil {
		c.Fork = redactFork(*d.Fork)
	}
	return &c
}

// snapshot masks a node snapshot's context values; the context's keys
// (the workflow's variable names, which conditions read) but those
// holding a secret, and everything else of the snapshot (cursor,
// preferences, capabilities) are kept.
func (m masker) snapshot(s run.Snapshot) run.Snapshot {
	if s.Context != nil {
		s.Context = m.value(s.Context).(map[string]any)
	}
	return s
}

// mask returns v, a JSON value, with the same shape and types and no
// content: a non-empty string reads RedactedMarker, a number is 0; true,
// false and null stay (a flag is what a condition branches on); a list
// keeps its length (a forEach loop counts it) and an object its keys,
// each value masked.
func mask(v any) any {
	switch x := v.(type) {
	case string:
		return marked(x)
	case json.Number:
		return json.Number("0")
	case float64:
		return float64(0)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = mask(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = mask(e)
		}
		return out
	}
	return v // bool, nil
}

// redacted returns evs and snaps with what level leaves out left out
// (keys: see ExportOptions.Keys).
func redacted(level Redaction, evs []event.Event, snaps map[engine.SnapshotRef]run.Snapshot, keys marker.Scanner) ([]event.Event, map[engine.SnapshotRef]run.Snapshot, error) {
	switch level {
	case RedactNotes:
		return redactNotes(evs), snaps, nil
	case RedactAll:
		return redactAll(evs, snaps, keys)
	}
	return evs, snaps, nil
}

func marked(s string) string {
	if s == "" {
		return ""
	}
	return RedactedMarker
}
