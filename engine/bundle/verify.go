package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
)

// Verified is a bundle that passed every check, with its content read.
type Verified struct {
	Bundle    *Bundle
	Events    []event.Event
	Snapshots map[engine.SnapshotRef]run.Snapshot
	Workflows map[engine.WorkflowHash]compile.Compiled
	Graph     *project.Graph
	// overview and lineage are the session's overview and projection,
	// folded from the same events.
	overview project.Overview
	lineage  *project.Lineage
}

// Projection is run id's projection, folded from the bundle's events: what
// the Markdown export reads of a run.
func (v *Verified) Projection(id engine.RunID) (*project.Projection, error) {
	if v.lineage == nil {
		return nil, fmt.Errorf("bundle: run %s: %w", id, engine.ErrNotFound)
	}
	return v.lineage.Projection(&v.overview, id)
}

// Origin is the session and chain head of the log the bundle copies,
// which a session imported from it records.
func (v *Verified) Origin() event.ImportSource {
	return event.ImportSource{Session: v.Bundle.Session.ID, ChainHead: v.Bundle.Manifest.ChainHead}
}

// Read decodes data and verifies it, in this order, stopping at the
// first problem: it is JSON; it is a bundle of a version this package
// reads (1 or SchemaVersion) with no unknown fields; every part matches
// its manifest digest; the events decode as WorkRail writes them, are
// numbered 1..n in one session and chain to the manifest's head; every
// snapshot and pinned workflow they name is present and matches its
// address, and nothing else is; the events make a possible history; the
// readable parts equal their refold; a bundle that says everything is
// redacted holds nothing a redaction would mask.
// Every failure is a BUNDLE_INVALID *engine.Error naming the problem and
// where it is.
func Read(data []byte) (*Verified, error) {
	b, err := decode(data)
	if err != nil {
		return nil, err
	}
	if err := checkManifest(b); err != nil {
		return nil, err
	}
	v := &Verified{Bundle: b}
	if v.Events, err = readEvents(b); err != nil {
		return nil, err
	}
	if err := v.readReferences(); err != nil {
		return nil, err
	}
	if err := checkHistory(v.Events); err != nil {
		return nil, err
	}
	if err := v.refold(); err != nil {
		return nil, err
	}
	if err := v.checkMasked(); err != nil {
		return nil, err
	}
	return v, nil
}

// versions are the bundleSchemaVersions Read reads, as their JSON.
var versions = map[string]int{"1": 1, "2": 2}

// decode reads data as a bundle of this version, strictly.
func decode(data []byte) (*Bundle, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, malformed(data, err)
	}
	var format string
	if raw, ok := top["format"]; !ok || json.Unmarshal(raw, &format) != nil || format != Format {
		got := "missing"
		if ok {
			got = string(raw)
		}
		return nil, invalid(NotABundle, "it is JSON but not a WorkRail session bundle (its \"format\" is %s, not %q)", got, Format).
			With("format", got)
	}
	raw, ok := top["bundleSchemaVersion"]
	version, known := versions[string(raw)]
	if !ok || !known {
		got := "missing"
		if ok {
			got = string(raw)
		}
		return nil, invalid(UnsupportedVersion, "its bundleSchemaVersion is %s; this WorkRail reads versions 1 to %d (a newer WorkRail wrote it? Export it again from a WorkRail of this version or older, or upgrade this one)", got, SchemaVersion).
			With("bundleSchemaVersion", got).With("supported", SchemaVersion)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b Bundle
	if err := dec.Decode(&b); err != nil {
		return nil, schemaViolation(data, version, err)
	}
	if err := checkRedaction(b.Session, version); err != nil {
		return nil, err
	}
	return &b, nil
}

// checkRedaction holds session.redaction to its version: absent in
// version 1, one of Redactions in version 2, and agreeing with
// session.redacted.
func checkRedaction(s Session, version int) error {
	switch {
	case version == 1 && s.Redaction != "":
		return invalid(SchemaViolation, "it is a version 1 bundle with session.redaction, which version 2 added").
			With("violation", "/session/redaction")
	case version > 1 && !s.Redaction.valid():
		return invalid(SchemaViolation, "session.redaction is %q, not one of %q", s.Redaction, Redactions()).
			With("violation", "/session/redaction")
	case s.Redacted != (s.Level() != RedactNone):
		return invalid(SchemaViolation, "session.redacted is %t but session.redaction is %q", s.Redacted, s.Redaction).
			With("violation", "/session/redacted")
	}
	return nil
}

// malformed describes JSON that does not parse, with where it stops.
func malformed(data []byte, err error) *engine.Error {
	var syn *json.SyntaxError
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		return invalid(Malformed, "it is empty").With("offset", 0)
	case errors.As(err, &syn) && syn.Offset >= int64(len(data)):
		return invalid(Malformed, "it is not complete JSON: it ends after %d bytes, in the middle of a value (truncated?)", len(data)).
			With("offset", syn.Offset)
	case errors.As(err, &syn):
		return invalid(Malformed, "it is not JSON: %v at byte %d", syn, syn.Offset).With("offset", syn.Offset)
	}
	// Valid JSON of another shape than an object.
	return invalid(Malformed, "it is JSON but not a JSON object")
}

// schemaViolation describes a document of the right version that the
// strict decoder refuses, where it can, by the schema's own verdict.
func schemaViolation(data []byte, version int, err error) *engine.Error {
	where := violations(data)
	if where == "" {
		where = err.Error()
	}
	return invalid(SchemaViolation, "it does not follow bundle schema version %d: %s", version, where).With("violation", where)
}

// checkManifest compares every part with its manifest digest.
func checkManifest(b *Bundle) error {
	for _, p := range b.parts() {
		got, err := digestOf(p.value)
		if err != nil {
			return invalid(SchemaViolation, "part %q cannot be read as canonical JSON: %v", p.name, err).With("part", p.name)
		}
		if got != *p.entry {
			return invalid(DigestMismatch, "part %q does not match its manifest digest (manifest.parts.%s %s, the part digests to %s)",
				p.name, p.name, *p.entry, got).
				With("entry", "manifest.parts."+p.name).With("expected", p.entry.String()).With("actual", got.String())
		}
	}
	return nil
}

// readEvents decodes the events strictly, checks their numbering and
// session, and recomputes the chain.
func readEvents(b *Bundle) ([]event.Event, error) {
	if b.Session.ID == 0 {
		return nil, invalid(SchemaViolation, "session.sessionId is missing").With("violation", "/session/sessionId")
	}
	if len(b.Events) == 0 {
		return nil, invalid(SchemaViolation, "it holds no events").With("violation", "/events")
	}
	if len(b.Events) != b.Manifest.EventCount {
		return nil, invalid(EventOrder, "the manifest counts %d events; the bundle holds %d", b.Manifest.EventCount, len(b.Events)).
			With("expected", b.Manifest.EventCount).With("actual", len(b.Events))
	}
	evs := make([]event.Event, len(b.Events))
	var head engine.Digest
	for i, raw := range b.Events {
		want := engine.EventIndex(i + 1)
		enc, err := canon.JSON(raw)
		if err != nil {
			return nil, invalid(InvalidEvent, "event %d (events[%d]) is not canonical JSON: %v", want, i, err).With("index", want)
		}
		e, err := event.Decode(enc)
		if err != nil {
			return nil, invalid(InvalidEvent, "event %d (events[%d]) is not an event WorkRail writes: %v", want, i, err).With("index", want)
		}
		if e.Index != want {
			return nil, invalid(EventOrder, "events[%d] is event %d; the events must be numbered 1 to %d in order, so it should be event %d",
				i, e.Index, len(b.Events), want).With("index", want).With("found", e.Index)
		}
		if e.Session != b.Session.ID {
			return nil, invalid(EventOrder, "event %d belongs to session %s, not the bundle's session %s", want, e.Session, b.Session.ID).
				With("index", want).With("sessionId", e.Session.String())
		}
		evs[i], head = e, event.Chain(head, enc)
	}
	if head != b.Manifest.ChainHead {
		return nil, invalid(ChainMismatch, "the digest chain over the %d events ends at %s, not at the manifest's chainHead %s",
			len(evs), head, b.Manifest.ChainHead).
			With("entry", "manifest.chainHead").With("expected", b.Manifest.ChainHead.String()).With("actual", head.String())
	}
	return evs, nil
}

// readReferences reads every snapshot and pinned workflow the events
// name, checking each against its address, and refuses what no event
// names.
func (v *Verified) readReferences() error {
	b := v.Bundle
	v.Snapshots = map[engine.SnapshotRef]run.Snapshot{}
	v.Workflows = map[engine.WorkflowHash]compile.Compiled{}
	if err := WalkReferences(v.Events, v.readSnapshot, v.readWorkflow); err != nil {
		return err
	}
	for _, ref := range sortedKeys(b.Snapshots) {
		if _, ok := v.Snapshots[ref]; !ok {
			return invalid(Unreferenced, "it holds snapshot %s, which no node names", ref).With("snapshotRef", ref.String())
		}
	}
	for _, h := range sortedKeys(b.Workflows) {
		if _, ok := v.Workflows[h]; !ok {
			return invalid(Unreferenced, "it holds workflow %s, which no run is pinned to", h).With("workflowHash", h.String())
		}
	}
	return nil
}

func (v *Verified) readWorkflow(e event.Event, h engine.WorkflowHash) error {
	raw, ok := v.Bundle.Workflows[h]
	if !ok {
		return invalid(MissingReference, "%s (event %d) is pinned to workflow %s, which the bundle does not hold", e.Run, e.Index, h).
			With("runId", e.Run.String()).With("workflowHash", h.String()).With("index", e.Index)
	}
	enc, err := canon.JSON(raw)
	if err != nil || engine.Sum(enc) != engine.Digest(h) {
		return addressMismatch("workflow", "workflowHash", h.String(), enc, err).With("runId", e.Run.String())
	}
	c, err := compile.Restore(enc, h)
	if err == nil {
		var sealed compile.Compiled
		if sealed, err = compile.Seal(c.Workflow); err == nil && sealed.Hash != h {
			err = fmt.Errorf("it has fields a compiled workflow does not")
		}
	}
	if err != nil {
		return invalid(ReferenceMismatch, "workflow %s does not read as a compiled workflow: %v", h, err).
			With("workflowHash", h.String()).With("runId", e.Run.String())
	}
	v.Workflows[h] = c
	return nil
}

func (v *Verified) readSnapshot(e event.Event, ref engine.SnapshotRef) error {
	raw, ok := v.Bundle.Snapshots[ref]
	if !ok {
		return invalid(MissingReference, "%s (event %d) names snapshot %s, which the bundle does not hold", e.Node, e.Index, ref).
			With("nodeId", e.Node.String()).With("snapshotRef", ref.String()).With("index", e.Index)
	}
	enc, err := canon.JSON(raw)
	if err != nil || engine.Sum(enc) != engine.Digest(ref) {
		return addressMismatch("snapshot", "snapshotRef", ref.String(), enc, err).With("nodeId", e.Node.String())
	}
	var s run.Snapshot
	dec := json.NewDecoder(bytes.NewReader(enc))
	dec.DisallowUnknownFields()
	err = dec.Decode(&s)
	if err == nil {
		var again []byte
		if again, err = canon.JSON(s); err == nil && !bytes.Equal(again, enc) {
			err = fmt.Errorf("it does not read back as the same snapshot")
		}
	}
	if err != nil {
		return invalid(ReferenceMismatch, "snapshot %s (of %s) is not a node snapshot WorkRail writes: %v", ref, e.Node, err).
			With("nodeId", e.Node.String()).With("snapshotRef", ref.String())
	}
	v.Snapshots[ref] = s
	return nil
}

// addressMismatch is the error for content-addressed content (a snapshot
// or workflow, named in details by key) that is not its address.
func addressMismatch(what, key, address string, enc []byte, err error) *engine.Error {
	if err != nil {
		return invalid(ReferenceMismatch, "%s %s is not canonical JSON: %v", what, address, err).With(key, address)
	}
	return invalid(ReferenceMismatch, "%s %s does not match its address: its content digests to %s", what, address, engine.Sum(enc)).
		With(key, address).With("expected", address).With("actual", engine.Sum(enc).String())
}

// refold folds the events and compares every readable part with what the
// fold says.
func (v *Verified) refold() error {
	b := v.Bundle
	g, ov, ln, err := fold(b.Session.ID, v.Events, v.Snapshots)
	if err != nil {
		return invalid(InvalidHistory, "the events do not fold into a session: %v", err)
	}
	for _, e := range v.Events {
		if d, ok := e.Data.(*event.NodeCreatedData); ok {
			if err := v.checkPinned(g, e, d); err != nil {
				return err
			}
		}
	}
	d, err := derive(g, ov, b.Session.Level(), b.Session.Redaction)
	if err != nil {
		return invalid(InvalidHistory, "the events do not fold into a session: %v", err)
	}
	refolded := &Bundle{}
	d.fill(refolded)
	mine, theirs := refolded.parts(), b.parts()
	for i, p := range mine {
		if _, ok := derivedPart[p.name]; !ok {
			continue
		}
		got, err := digestOf(p.value)
		if err != nil {
			return invalid(InvalidHistory, "the events fold into a part %q that cannot be written as canonical JSON: %v", p.name, err).
				With("part", p.name)
		}
		if want := *theirs[i].entry; got != want {
			at := p.name + difference(p.value, theirs[i].value)
			return invalid(DerivedMismatch, "part %q says something other than its events do, first at %s (the bundle's part digests to %s, the refold of the events to %s)",
				p.name, at, want, got).With("part", p.name).With("at", at).With("expected", got.String()).With("actual", want.String())
		}
	}
	v.Graph, v.overview, v.lineage = g, ov, ln
	return nil
}

// difference is the JSON pointer of the first place two values differ,
// as their JSON; "" when they do not.
func difference(a, b any) string {
	var x, y any
	if ja, err := json.Marshal(a); err == nil {
		json.Unmarshal(ja, &x)
	}
	if jb, err := json.Marshal(b); err == nil {
		json.Unmarshal(jb, &y)
	}
	return differ(x, y)
}

func differ(x, y any) string {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			return ""
		}
		keys := slices.AppendSeq(slices.Collect(maps.Keys(xv)), maps.Keys(yv))
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			if !reflect.DeepEqual(xv[k], yv[k]) {
				return "/" + k + differ(xv[k], yv[k])
			}
		}
	case []any:
		yv, ok := y.([]any)
		if !ok {
			return ""
		}
		for i := range min(len(xv), len(yv)) {
			if !reflect.DeepEqual(xv[i], yv[i]) {
				return fmt.Sprintf("/%d%s", i, differ(xv[i], yv[i]))
			}
		}
		if len(xv) != len(yv) {
			return fmt.Sprintf("/%d", min(len(xv), len(yv)))
		}
	}
	return ""
}

// checkMasked holds a bundle that says everything is redacted to it: each
// event and snapshot is as redaction leaves it, so masking it again
// changes nothing. A bundle edited after export to put text back is
// refused.
func (v *Verified) checkMasked() error {
	if v.Bundle.Session.Level() != RedactAll {
		return nil
	}
	for i, e := range v.Events {
		p, err := masker{}.payload(e.Data, nil)
		if err == nil {
			e.Data = p
			var again, stored []byte
			if again, err = event.Encode(e); err == nil {
				stored, err = canon.JSON(v.Bundle.Events[i])
			}
			if err == nil && !bytes.Equal(again, stored) {
				err = fmt.Errorf("it holds text a redaction masks")
			}
		}
		if err != nil {
			return invalid(NotRedacted, "the bundle says everything is redacted, but event %d is not: %v", e.Index, err).With("index", e.Index)
		}
	}
	for _, ref := range sortedKeys(v.Snapshots) {
		if !reflect.DeepEqual(masker{}.snapshot(v.Snapshots[ref]), v.Snapshots[ref]) {
			return invalid(NotRedacted, "the bundle says everything is redacted, but snapshot %s holds context values", ref).
				With("snapshotRef", ref.String())
		}
	}
	return nil
}

// derivedPart names the parts that are derived from the events.
var derivedPart = map[string]bool{"session": true, "observations": true, "runs": true, "outputs": true, "gaps": true, "preferences": true}

// checkPinned holds a node's snapshot to its run's pinned workflow.
func (v *Verified) checkPinned(g *project.Graph, e event.Event, d *event.NodeCreatedData) error {
	r, err := g.Run(e.Run)
	if err != nil {
		return invalid(InvalidHistory, "%s (event %d) belongs to %s, which did not start", e.Node, e.Index, e.Run).With("index", e.Index)
	}
	if err := run.Check(v.Workflows[r.WorkflowHash], v.Snapshots[d.Snapshot]); err != nil {
		return invalid(InvalidHistory, "the snapshot of %s (event %d) does not fit the workflow %s is pinned to: %v", e.Node, e.Index, e.Run, err).
			With("nodeId", e.Node.String()).With("snapshotRef", d.Snapshot.String()).With("index", e.Index)
	}
	return nil
}
