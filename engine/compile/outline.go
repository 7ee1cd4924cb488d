package compile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

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
//
// The bytes are canonical JSON (RFC 8785) verified against their hash,
// so they are read by a scan that checks their shape where it reads a
// value and otherwise only finds where each value ends: most of a pin is
// prompt text, and a string is skipped by looking for its closing quote.
func RestoreOutline(canonical []byte, h engine.WorkflowHash) (Compiled, error) {
	// Each step is an object opening {"step": (inside a string a quote
	// is escaped), so this counts the steps, or a few more.
	steps := bytes.Count(canonical, []byte(`{"step":`))
	r := &outlineReader{scanner: scanner{b: canonical}, o: &outline{steps: make([]stepSpan, 0, steps)}, free: make([]Step, steps),
		at: make([]textAt, 0, 2*steps+8), texts: make([]byte, 0, 16*steps+64)}
	var w Workflow
	for more := r.open('{'); more; more = r.next('}') {
		switch string(r.key()) {
		case "id":
			r.text((*string)(&w.ID))
		case "kind":
			r.text((*string)(&w.Kind))
		case "name":
			r.text(&w.Name)
		case "description":
			r.text(&w.Description)
		case "version":
			r.text(&w.Version)
		case "steps":
			w.Steps = r.nodes()
		case "contracts":
			from := r.i
			r.skip()
			r.o.contracts = span{int64(from), int64(r.i)}
		default:
			r.skip()
		}
	}
	if r.err != nil {
		return Compiled{}, fmt.Errorf("compile: pinned workflow %s: %w", h, r.err)
	}
	r.keepTexts()
	c := restore(w, canonical, h)
	c.outline = r.o
	return c, nil
}

// outline is where RestoreOutline found what it left undecoded: each
// step's object and the contracts, as byte ranges of the canonical
// bytes, so one of them can be decoded alone (DecodeStep,
// DecodeContracts).
type outline struct {
	steps     []stepSpan // in document order
	contracts span       // empty when the workflow has none
}

type stepSpan struct {
	step *Step // its id and title
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
	i := slices.IndexFunc(c.outline.steps, func(s stepSpan) bool { return s.step.ID == id })
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

// outlineReader is RestoreOutline's reading: a scanner, where the steps
// are, and the ids and titles read so far.
type outlineReader struct {
	scanner
	o *outline
	// free are zero Steps made in one block, one for each step.
	free []Step
	// texts are the ids and titles, unquoted, one after another; each of
	// at says which field holds which part, set once the reading ends:
	// one string for all of them rather than one each.
	texts []byte
	at    []textAt
}

type textAt struct {
	field    *string
	from, to int
}

// nodes reads a list of nodes, noting where each step is.
func (r *outlineReader) nodes() []Node {
	if r.null() {
		return nil // a workflow sealed without steps
	}
	out := []Node{}
	for more := r.open('['); more; more = r.next(']') {
		var n Node
		for more := r.open('{'); more; more = r.next('}') {
			switch string(r.key()) {
			case "step":
				n.Step = r.newStep()
				from := r.i
				r.step(n.Step)
				r.o.steps = append(r.o.steps, stepSpan{n.Step, span{int64(from), int64(r.i)}})
			case "loop":
				n.Loop = &Loop{}
				r.loop(n.Loop)
			default:
				r.skip()
			}
		}
		out = append(out, n)
	}
	return out
}

func (r *outlineReader) step(s *Step) {
	for more := r.open('{'); more; more = r.next('}') {
		switch string(r.key()) {
		case "id":
			r.text((*string)(&s.ID))
		case "title":
			r.text(&s.Title)
		default:
			r.skip()
		}
	}
}

func (r *outlineReader) loop(l *Loop) {
	for more := r.open('{'); more; more = r.next('}') {
		switch string(r.key()) {
		case "id":
			r.text((*string)(&l.ID))
		case "title":
			r.text(&l.Title)
		case "body":
			l.Body = r.nodes()
		case "spec":
			for more := r.open('{'); more; more = r.next('}') {
				if string(r.key()) == "maxIterations" {
					l.Spec.MaxIterations = r.integer()
				} else {
					r.skip()
				}
			}
		default:
			r.skip()
		}
	}
}

// newStep is a new zero Step from the block made for all of them.
func (r *outlineReader) newStep() *Step {
	if len(r.free) == 0 {
		r.free = make([]Step, 16)
	}
	s := &r.free[0]
	r.free = r.free[1:]
	return s
}

// text reads a string into field, once the reading ends (keepTexts).
func (r *outlineReader) text(field *string) {
	from := len(r.texts)
	r.texts = r.unquote(r.texts)
	r.at = append(r.at, textAt{field, from, len(r.texts)})
}

// keepTexts sets each field text read to its part of one string.
func (r *outlineReader) keepTexts() {
	all := string(r.texts)
	for _, t := range r.at {
		*t.field = all[t.from:t.to]
	}
}
