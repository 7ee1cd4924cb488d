package compile

import (
	"bytes"
	"fmt"

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
// step's run. A page that shows a 1,000-step run's rows reads its pin
// this way in a fraction of a full Restore, which decodes every prompt.
func RestoreOutline(canonical []byte, h engine.WorkflowHash) (Compiled, error) {
	// The bytes are verified against their hash and were written by
	// Canonical: what a decoder checks besides their shape is checked.
	d := jsontext.NewDecoder(bytes.NewBuffer(canonical), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var w Workflow
	err := members(d, func(name []byte) error {
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
			w.Steps, err = outlineNodes(d)
		default:
			err = d.SkipValue()
		}
		return err
	})
	if err != nil {
		return Compiled{}, fmt.Errorf("compile: pinned workflow %s: %w", h, err)
	}
	return restore(w, canonical, h), nil
}

// outlineNodes reads a list of nodes as RestoreOutline does.
func outlineNodes(d *jsontext.Decoder) ([]Node, error) {
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
		err := members(d, func(name []byte) error {
			switch string(name) {
			case "step":
				n.Step = &Step{}
				return members(d, func(name []byte) error { return outlineStep(d, name, n.Step) })
			case "loop":
				n.Loop = &Loop{}
				return members(d, func(name []byte) error { return outlineLoop(d, name, n.Loop) })
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

func outlineLoop(d *jsontext.Decoder, name []byte, l *Loop) error {
	var err error
	switch string(name) {
	case "id":
		l.ID, err = text[workflow.StepID](d)
	case "title":
		l.Title, err = text[string](d)
	case "body":
		l.Body, err = outlineNodes(d)
	case "spec":
		err = members(d, func(name []byte) error {
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

// members reads an object, calling member with each name (unquoted,
// valid only during the call) with the decoder at its value, which
// member must read.
func members(d *jsontext.Decoder, member func(name []byte) error) error {
	if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
		return unexpected(d, t, err)
	}
	var name []byte
	for d.PeekKind() != '}' {
		v, err := d.ReadValue() // a name: read as bytes, not a string made per member
		if err != nil {
			return err
		}
		if name, err = jsontext.AppendUnquote(name[:0], v); err != nil {
			return err
		}
		if err := member(name); err != nil {
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
