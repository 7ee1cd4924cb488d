package compile

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// FuzzRestoreOutline holds RestoreOutline's scan to a reading of the
// same bytes by jsontext, token by token (outlineByTokens, the reader it
// replaced): on canonical bytes a full Restore reads, both find the same
// outline, and each step's and the contracts' bytes in the same place.
// On any other bytes it must return, not panic or loop.
func FuzzRestoreOutline(f *testing.F) {
	for _, w := range outlineSeeds() {
		c, err := Seal(w)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(c.Canonical)
	}
	for _, s := range []string{``, `[]`, `{"steps":{}}`, `{"steps":[{"step":{"id":1}}]}`, `{"steps":null}`,
		`{"steps":[{"loop":{"spec":{"maxIterations":"x"}}}]}`, `{"id":"a"`, `{"id":"a\"`, `{"steps":[{"step":{"id":"a\\"}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := RestoreOutline(b, engine.WorkflowHash{})
		canonical := jsontext.Value(bytes.Clone(b))
		if canonical.Canonicalize() != nil || !bytes.Equal(canonical, b) {
			return
		}
		if _, full := Restore(b, engine.WorkflowHash{}); full != nil {
			return
		}
		want, wantSteps, wantContracts, wantErr := outlineByTokens(b)
		if wantErr != nil {
			return
		}
		if err != nil {
			t.Fatalf("RestoreOutline(%s) = %v; the token reader reads it", b, err)
		}
		if !reflect.DeepEqual(got.Workflow, want) {
			t.Fatalf("RestoreOutline(%s):\n got %+v\nwant %+v", b, got.Workflow, want)
		}
		if len(got.outline.steps) != len(wantSteps) {
			t.Fatalf("RestoreOutline(%s) found %d steps, the token reader %d", b, len(got.outline.steps), len(wantSteps))
		}
		for i, s := range got.outline.steps {
			if g, w := value(b, s.span), value(b, wantSteps[i].span); s.step.ID != wantSteps[i].id || g != w {
				t.Fatalf("RestoreOutline(%s): step %d is %s at %q; the token reader's %s at %q", b, i, s.step.ID, g, wantSteps[i].id, w)
			}
		}
		if g, w := value(b, got.outline.contracts), value(b, wantContracts); g != w {
			t.Fatalf("RestoreOutline(%s): contracts at %q; the token reader's at %q", b, g, w)
		}
	})
}

// value is the value a span holds, without its leading separator.
func value(b []byte, s span) string {
	return string(bytes.TrimLeft(b[s.from:s.to], ":, \t\r\n"))
}

// outlineSeeds are workflows whose outlines need escapes, loops in loops
// and steps with everything an outline skips.
func outlineSeeds() []Workflow {
	titles := []string{"", `say "done"`, `C:\path\`, "tab\there\nand a line", "line\u2028sep", "café ✓ 🚀", "<b>&amp;</b>", `\"`}
	w := Workflow{ID: "wr.x", Kind: "workflow", Name: `the "x"`, Description: "d\\", Version: "1"}
	for i, title := range titles {
		w.Steps = append(w.Steps, Node{Step: &Step{ID: workflow.StepID("s-é" + strconv.Itoa(i)), Title: title, Prompt: `do "` + title + `" {[`}})
	}
	inner := &Loop{ID: "inner", Title: "in\\", Body: []Node{{Step: &Step{ID: "deep", Title: "]}"}}}}
	inner.Spec.MaxIterations = 3
	outer := &Loop{ID: `l"1`, Title: "loop\t✓", Body: []Node{{Step: &Step{ID: "in", Title: `in "it"`}}, {Loop: inner}}}
	outer.Spec.MaxIterations = 12
	w.Steps = append(w.Steps, Node{Loop: outer})
	return []Workflow{w, {ID: "wr.none", Name: "n", Version: "2"}}
}

// stepAt is where outlineByTokens found a step.
type stepAt struct {
	id workflow.StepID
	span
}

// outlineByTokens is the outline of canonical read with jsontext, token
// by token: the reading RestoreOutline's scan replaced, kept to hold it
// to.
func outlineByTokens(canonical []byte) (w Workflow, steps []stepAt, contracts span, err error) {
	d := jsontext.NewDecoder(bytes.NewBuffer(canonical), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var nodes func() ([]Node, error)
	members := func(member func(name string) error) error {
		if t, err := d.ReadToken(); err != nil || t.Kind() != '{' {
			return tokenErr(d, t, err)
		}
		for d.PeekKind() != '}' {
			t, err := d.ReadToken()
			if err != nil {
				return err
			}
			if err := member(t.String()); err != nil {
				return err
			}
		}
		_, err := d.ReadToken()
		return err
	}
	text := func(dst *string) error {
		t, err := d.ReadToken()
		if err != nil || t.Kind() != '"' {
			return tokenErr(d, t, err)
		}
		*dst = t.String()
		return nil
	}
	nodes = func() ([]Node, error) {
		t, err := d.ReadToken()
		if err == nil && t.Kind() == 'n' {
			return nil, nil
		}
		if err != nil || t.Kind() != '[' {
			return nil, tokenErr(d, t, err)
		}
		out := []Node{}
		for d.PeekKind() != ']' {
			var n Node
			err := members(func(name string) error {
				switch name {
				case "step":
					n.Step = &Step{}
					from := d.InputOffset()
					err := members(func(name string) error {
						switch name {
						case "id":
							return text((*string)(&n.Step.ID))
						case "title":
							return text(&n.Step.Title)
						}
						return d.SkipValue()
					})
					steps = append(steps, stepAt{n.Step.ID, span{from, d.InputOffset()}})
					return err
				case "loop":
					n.Loop = &Loop{}
					return members(func(name string) error {
						var err error
						switch name {
						case "id":
							return text((*string)(&n.Loop.ID))
						case "title":
							return text(&n.Loop.Title)
						case "body":
							n.Loop.Body, err = nodes()
							return err
						case "spec":
							return members(func(name string) error {
								if name != "maxIterations" {
									return d.SkipValue()
								}
								t, err := d.ReadToken()
								if err != nil || t.Kind() != '0' {
									return tokenErr(d, t, err)
								}
								i, err := t.Int()
								n.Loop.Spec.MaxIterations = int(i)
								return err
							})
						}
						return d.SkipValue()
					})
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
	err = members(func(name string) error {
		var err error
		switch name {
		case "id":
			return text((*string)(&w.ID))
		case "kind":
			return text((*string)(&w.Kind))
		case "name":
			return text(&w.Name)
		case "description":
			return text(&w.Description)
		case "version":
			return text(&w.Version)
		case "steps":
			w.Steps, err = nodes()
			return err
		case "contracts":
			from := d.InputOffset()
			err = d.SkipValue()
			contracts = span{from, d.InputOffset()}
			return err
		}
		return d.SkipValue()
	})
	return w, steps, contracts, err
}

func tokenErr(d *jsontext.Decoder, t jsontext.Token, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("unexpected %v at %s", t.Kind(), d.StackPointer())
}
