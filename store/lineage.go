package store

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/run"
	"github.com/workrail/workrail/store/internal/layout"
)

// Each session's bucket keeps its runs' projection (project.Project's
// records) in bucketLineage: a run's head under run ‖ 0, and the part of
// each of its nodes under run ‖ node, so a run is one range of keys and
// an append rewrites the few records it changed. Derived like the
// indexes: written in the transaction of every append, refolded and
// compared with them.

var bucketLineage = layout.Lineage // RunID ‖ NodeID → project.Part, RunID ‖ 0 → project.RunHead (derived)

func lineageKey(r engine.RunID, n engine.NodeID) []byte {
	return binary.BigEndian.AppendUint32(u32(uint32(r)), uint32(n))
}

// heldLineage is what one transaction's appends folded into the
// projection: the records it read or changed, written once as it ends
// (flushLineage). It implements project.Parts over the transaction's
// key-value seam.
type heldLineage struct {
	t     *Tx
	parts map[engine.NodeID]*project.Part
	heads map[engine.RunID]*project.RunHead
	dirty map[string]bool // the keys of the records to write
}

func (t *Tx) lineage() *heldLineage {
	if t.ln == nil {
		t.ln = &heldLineage{t: t, parts: map[engine.NodeID]*project.Part{}, heads: map[engine.RunID]*project.RunHead{}, dirty: map[string]bool{}}
	}
	return t.ln
}

// Part reads the projection's record of node n of run r, as this
// transaction's appends left it.
func (t *Tx) Part(r engine.RunID, n engine.NodeID) (project.Part, error) {
	return t.lineage().Part(r, n)
}

// Part implements project.Parts.
func (l *heldLineage) Part(r engine.RunID, n engine.NodeID) (project.Part, error) {
	if p, ok := l.parts[n]; ok && p.Run == r {
		return *p, nil
	}
	var p project.Part
	if err := l.t.get(bucketLineage, lineageKey(r, n), func(b []byte) error { return decodePart(b, &p) }); err != nil {
		return p, err
	}
	l.parts[n] = &p
	return p, nil
}

// PutPart implements project.Parts.
func (l *heldLineage) PutPart(p project.Part) error {
	l.parts[p.Node] = &p
	l.dirty[string(lineageKey(p.Run, p.Node))] = true
	return nil
}

// RunHead implements project.Parts.
func (l *heldLineage) RunHead(r engine.RunID) (project.RunHead, error) {
	if h, ok := l.heads[r]; ok {
		return *h, nil
	}
	var h project.RunHead
	if err := l.t.getJSON(bucketLineage, lineageKey(r, 0), &h); err != nil {
		return h, err
	}
	l.heads[r] = &h
	return h, nil
}

// PutRunHead implements project.Parts.
func (l *heldLineage) PutRunHead(h project.RunHead) error {
	l.heads[h.Run] = &h
	l.dirty[string(lineageKey(h.Run, 0))] = true
	return nil
}

// addLineage folds e into the projection this transaction holds; the
// overview it reads is the one the same event was just folded into.
func (t *Tx) addLineage(e event.Event) error {
	if t.ov == nil {
		return fmt.Errorf("store: projection of event %d: the overview did not fold", e.Index)
	}
	if err := project.Project(t.lineage(), t, t.ov, e); err != nil {
		return fmt.Errorf("store: projection of event %d: %w", e.Index, err)
	}
	return nil
}

// flushLineage writes the projection records this transaction changed.
func (t *Tx) flushLineage() error {
	l := t.ln
	if l == nil {
		return nil
	}
	keys := make([]string, 0, len(l.dirty))
	for k := range l.dirty {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		r, n := engine.RunID(binary.BigEndian.Uint32([]byte(k))), engine.NodeID(binary.BigEndian.Uint32([]byte(k)[4:]))
		if n != 0 {
			if err := t.ix.put(bucketLineage, []byte(k), encodePart(l.parts[n])); err != nil {
				return fmt.Errorf("store: projection of %s: %w", r, err)
			}
			continue
		}
		if err := t.putJSON(bucketLineage, []byte(k), l.heads[r]); err != nil {
			return fmt.Errorf("store: projection of %s: %w", r, err)
		}
	}
	clear(l.dirty)
	return nil
}

// errOtherDefinition means a session's derived records are of another
// definition than this build's: they are rebuilt before they are read.
var errOtherDefinition = errors.New("store: derived records of another definition")

// Projection assembles run id of session sid from its stored records. A
// session whose records are of another definition (an upgrade's, before
// the background pass reached it) has them rebuilt first.
func (s *Store) Projection(sid engine.SessionID, id engine.RunID) (*project.Projection, error) {
	p, err := s.projection(sid, id)
	if errors.Is(err, errOtherDefinition) {
		if _, err = s.Health(sid); err == nil {
			p, err = s.projection(sid, id)
		}
	}
	return p, err
}

func (s *Store) projection(sid engine.SessionID, id engine.RunID) (*project.Projection, error) {
	var p *project.Projection
	err := s.view(sid, func(t *Tx) error {
		if stale(t.b) {
			return errOtherDefinition
		}
		o, err := s.overviewOf(t)
		if err != nil {
			return err
		}
		ps, err := t.projections(&o, id)
		if err == nil && len(ps) == 0 {
			err = fmt.Errorf("store: session %s has no projection of %s: %w", t.id, id, engine.ErrNotFound)
		}
		if err == nil {
			p = ps[0]
		}
		return err
	})
	return p, err
}

// Projections assembles every run of session sid, in the order they
// started (its records rebuilt first where Projection would).
func (s *Store) Projections(sid engine.SessionID) ([]*project.Projection, error) {
	out, err := s.projections(sid)
	if errors.Is(err, errOtherDefinition) {
		if _, err = s.Health(sid); err == nil {
			out, err = s.projections(sid)
		}
	}
	return out, err
}

func (s *Store) projections(sid engine.SessionID) ([]*project.Projection, error) {
	var out []*project.Projection
	err := s.view(sid, func(t *Tx) error {
		if stale(t.b) {
			return errOtherDefinition
		}
		o, err := s.overviewOf(t)
		if err != nil {
			return err
		}
		out, err = t.projections(&o, 0)
		return err
	})
	return out, err
}

// projections reads the projection records of run id (every run when 0)
// in one walk of their keys, and assembles them with the overview's
// tips.
func (t *Tx) projections(o *project.Overview, id engine.RunID) ([]*project.Projection, error) {
	if stale(t.b) {
		return nil, errOtherDefinition
	}
	b := t.b.Bucket(bucketLineage)
	if b == nil {
		return nil, fmt.Errorf("store: session %s keeps no projection (run workrail doctor): %w", t.id, engine.ErrNotFound)
	}
	c := b.Cursor()
	first := func() ([]byte, []byte) {
		if id != 0 {
			return c.Seek(u32(uint32(id)))
		}
		return c.First()
	}
	// Count the records first, keys only, so the parts of every run read
	// are one array made once, not one grown a part at a time.
	n := 0
	for k, _ := first(); len(k) == 8 && (id == 0 || engine.RunID(binary.BigEndian.Uint32(k)) == id); k, _ = c.Next() {
		n++
	}
	all := make([]project.Part, 0, n)
	var out []*project.Projection
	var head *project.RunHead
	start := 0
	done := func() {
		if head != nil {
			var ro project.RunOverview
			if r := o.Run(head.Run); r != nil {
				ro = *r
			}
			out = append(out, project.Assemble(*head, ro, all[start:len(all):len(all)]))
		}
		head, start = nil, len(all)
	}
	for k, v := first(); len(k) == 8; k, v = c.Next() {
		r := engine.RunID(binary.BigEndian.Uint32(k))
		if id != 0 && r != id {
			break
		}
		if binary.BigEndian.Uint32(k[4:]) == 0 {
			done()
			head = &project.RunHead{}
			if err := json.Unmarshal(v, head); err != nil {
				return nil, fmt.Errorf("store: projection of %s: %w", r, err)
			}
			continue
		}
		all = append(all, project.Part{})
		if err := decodePart(v, &all[len(all)-1]); err != nil {
			return nil, fmt.Errorf("store: projection of %s: %w", r, err)
		}
	}
	done()
	slices.SortFunc(out, func(a, b *project.Projection) int { return cmp.Compare(a.Run, b.Run) })
	return out, nil
}

// lineageRecords are a refold's projection records as the bucket keeps
// them: key → JSON.
func lineageRecords(l *project.Lineage) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, h := range l.Heads() {
		b, err := json.Marshal(h)
		if err != nil {
			return nil, err
		}
		out[string(lineageKey(h.Run, 0))] = b
	}
	for _, p := range l.AllParts() {
		out[string(lineageKey(p.Run, p.Node))] = encodePart(&p)
	}
	return out, nil
}

// Position implements project.PositionReader: where a snapshot this
// transaction put stands is known without reading it back.
func (t *Tx) Position(ref engine.SnapshotRef) (run.Position, error) {
	if p, ok := t.put[ref]; ok {
		return p, nil
	}
	snap, err := t.Snapshot(ref)
	return snap.Position, err
}
