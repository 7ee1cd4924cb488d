package compile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// RestoreOutline reads from the canonical bytes of a pinned copy (its
// hash verified by the caller) only what names a run's places: the
// workflow's id, kind, name, description and version, and its step tree
// with each step's id and title and each loop's id, title, maximum
// iterations and body. Everything else (prompts, conditions, contracts,
// requirements) is left zero, so it serves titles and progress, never a
// step's run; DecodeStep and DecodeContracts read one step or the
// contracts whole from it. A page that shows a 1,000-step run's rows reads its pin
// this way in a fraction of a full Restore, which decodes every prompt.
func RestoreOutline(canonical []byte, h engine.WorkflowHash) (Compiled, error) {
	// The bytes are verified against their hash and were written by
	// Canonical: what a decoder checks besides their shape is checked.
	d := jsontext.NewDecoder(bytes.NewBuffer(canonical), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var w Workflow
	o := &outline{}
	err := o.members(d, func(name []byte) error {
		var err error
		switch string(name) {
		case "id":
			w.ID, err = text[engine.WorkflowID](d)
		case "kind":
			w.Kind, err = text[workflow.Kind](d)
		case "name":
			w.Name, err = text[string](d)
		case "description":
			w.Description, err = text[string](d)
		case "version":
			w.Version, err = text[string](d)
		case "steps":
			w.Steps, err = outlineNodes(d, o)
		case "contracts":
			from := d.InputOffset()
			err = d.SkipValue()
			o.contracts = span{from, d.InputOffset()}
		default:
			err = d.SkipValue()
		}
		return err
	})
	if err != nil {
		return Compiled{}, fmt.Errorf("compile: pinned workflow %s: %w", h, err)
	}
	c := restore(w, canonical, h)
	o.name, o.free = nil, nil // the reading's scratch, not kept with the pin
	c.outline = o
	return c, nil
}

// outline is where RestoreOutline found what it left undecoded: each
// step's object and the contracts, as byte ranges of the canonical
// bytes, so one of them can be decoded alone (DecodeStep,
// DecodeContracts).
type outline struct {
	steps     []stepSpan // in document order
	contracts span       // empty when the workflow has none
	// name is the member name being read, unquoted: one buffer for all.
	name []byte
	// free are Steps made ahead, a block at a time, for the next steps.
	free []Step
}

type stepSpan struct {
	id workflow.StepID
	span
}

// span is a range of bytes, [from, to); a value's leading separator and
// spaces may be in it.
type span struct{ from, to int64 }

// DecodeStep is the step with id whole (prompt, conditions, user
// dependency and all) as Restore decodes it. Of an outline only that
// step's bytes are decoded; of a whole workflow it is Step.
func (c Compiled) DecodeStep(id workflow.StepID) (*Step, bool, error) {
	if c.outline == nil {
		s, ok := c.Step(id)
		return s, ok, nil
	}
	// A linear search: a panel decodes one step, once.
	i := slices.IndexFunc(c.outline.steps, func(s stepSpan) bool { return s.id == id })
	if i < 0 {
		return nil, false, nil
	}
	sp := c.outline.steps[i].span
	s := &Step{}
	if err := json.Unmarshal(bytes.TrimLeft(c.Canonical[sp.from:sp.to], ":, \t\r\n"), s); err != nil {
		return nil, false, fmt.Errorf("compile: step %s of pinned workflow %s: %w", id, c.Hash, err)
	}
	return s, true, nil
}

// DecodeContracts are the workflow's contracts as Restore decodes them:
// of an outline only their bytes are decoded.
func (c Compiled) DecodeContracts() (map[workflow.ContractRef]ContractPack, error) {
	if c.outline == nil {
		return c.Contracts, nil
	}
	sp := c.outline.contracts
	if sp.from == sp.to {
		return nil, nil
	}
	var out map[workflow.ContractRef]ContractPack
	if err := json.Unmarshal(bytes.TrimLeft(c.Canonical[sp.from:sp.to], ":, \t\r\n"), &out); err != nil {
		return nil, fmt.Errorf("compile: contracts of pinned workflow %s: %w", c.Hash, err)
	}
	return out, nil
}

// outlineNodes reads a list of nodes as RestoreOutline does, noting in o
// where each step is.
func outlineNodes(d *jsontext.Decoder, o *outline) ([]Node, error) {
	t, err := d.ReadToken()
	if err == nil && t.Kind() == 'n' {
		return nil, nil // a workflow sealed without steps
	}
	if err != nil || t.Kind() != '[' {
		return nil, unexpected(d, t, err)
	}
	out := []Node{}
	for d.PeekKind() != ']' {
		var n Node
		err := o.members(d, func(name []byte) error {
			switch string(name) {
			case "step":
				n.Step = o.newStep()
				from := d.InputOffset()
				if err := o.members(d, func(name []byte) error { return outlineStep(d, name, n.Step) }); err != nil {
					return err
				}
				o.steps = append(o.steps, stepSpan{n.Step.ID, span{from, d.InputOffset()}})
				return nil
			case "loop":
				n.Loop = &Loop{}
				return o.members(d, func(name []byte) error { return outlineLoop(d, name, n.Loop, o) })
			}
			return d.SkipValue()
		})
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	_, err = d.ReadToken()
	return out, err
}

func outlineStep(d *jsontext.Decoder, name []byte, s *Step) error {
	var err error
	switch string(name) {
	case "id":
		s.ID, err = text[workflow.StepID](d)
	case "title":
		s.Title, err = text[string](d)
	default:
		err = d.SkipValue()
	}
	return err
}

func outlineLoop(d *jsontext.Decoder, name []byte, l *Loop, o *outline) error {
	var err error
	switch string(name) {
	case "id":
		l.ID, err = text[workflow.StepID](d)
	case "title":
		l.Title, err = text[string](d)
	case "body":
		l.Body, err = outlineNodes(d, o)
	case "spec":
		err = o.members(d, func(name []byte) error {
			if string(name) != "maxIterations" {
				return d.SkipValue()
			}
			t, err := d.ReadToken()
			if err != nil || t.Kind() != '0' {
				return unexpected(d, t, err)
			}
			n, err := t.Int()
			l.Spec.MaxIterations = int(n)
			return err
		})
	default:
		err = d.SkipValue()
	}
	return err
}

// newStep is a new zero Step, from a block made ahead: a 1,000-step
// outline makes a few blocks, not a thousand Steps.
func (o *outline) newStep() *Step {
	if len(o.free) == 0 {
		o.free = make([]Step, 64)
	}
	s := &o.free[0]
	o.free = o.free[1:]
	return s
}

// members reads an object, calling member with each name (unquoted,
// valid only until member reads on) with the decoder at its value, which
// member must read.
func (o *outline) members(d *jsontext.Decoder, member func(name []byte) error) error {
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return unexpected(d, t, err)
	}
	for d.PeekKind() != '}' {
		v, err := d.ReadValue() // a name: read as bytes, not a string made per member
		if err != nil {
			return err
		}
		if o.name, err = jsontext.AppendUnquote(o.name[:0], v); err != nil {
			return err
		}
		if err := member(o.name); err != nil {
			return err
		}
	}
	_, err := d.ReadToken()
	return err
}

// text reads a string value.
func text[T ~string](d *jsontext.Decoder) (T, error) {
	t, err := d.ReadToken()
	if err != nil || t.Kind() != '"' {
		return "", unexpected(d, t, err)
	}
	return T(t.String()), nil
}

func unexpected(d *jsontext.Decoder, t jsontext.Token, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("unexpected %v at %s", t.Kind(), d.StackPointer())
}
