package compile

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/workrail/workrail/engine/workflow"
)

// renderPrompts turns each step's role, blocks (or raw prompt), injected
// blocks and output contract into its final, deterministic prompt text.
// Each prompt is measured before it is written, with its step's title:
// one over limits.Prompt, or one that takes the prompts together over
// limits.Bytes, is a *LimitError, and no prompt past it is written.
func renderPrompts(w Workflow, limits Limits) (Workflow, error) {
	templates := make(map[workflow.ContractRef]string, len(w.Contracts))
	for ref, p := range w.Contracts {
		templates[ref] = string(Template(ref, p).Value) // once: every step naming it shares the text
	}
	total := 0
	var err *LimitError
	w.Steps = mapSteps(w.Steps, func(s Step) Step {
		p := pieces(s, w.Contracts, templates)
		n := len(s.Title) + p.Len() // what the agent reads of the step, as run.Render counts it
		total += n
		switch {
		case err != nil: // measured only, to say what the prompts come to
		case n > limits.Prompt:
			err = &LimitError{Kind: LimitPrompt, Size: n, Limit: limits.Prompt, Pointer: s.ptr, Step: s.ID}
		case total > limits.Bytes:
			err = &LimitError{Kind: LimitPrompts, Limit: limits.Bytes, Pointer: s.ptr}
		default:
			s.Prompt = p.String()
		}
		return s
	})
	if err == nil {
		return w, nil
	}
	if err.Kind == LimitPrompts {
		err.Size = total
	}
	return w, err
}

// pieces is the prompt of step s: its role, goal or text, constraints
// (with injected blocks), procedure, guidance, functions, required
// output (with the contract's template, from templates) and checks.
func pieces(s Step, packs map[workflow.ContractRef]ContractPack, templates map[workflow.ContractRef]string) Text {
	var p Text
	if s.role != "" {
		p = append(p, "Act as: ", strings.TrimSpace(s.role), "\n\n")
	}
	var constraints []string
	if s.blocks != nil {
		p = append(p, strings.TrimSpace(s.blocks.Goal), "\n")
		constraints = s.blocks.Constraints
	} else {
		p = append(p, strings.TrimSpace(s.raw), "\n")
	}
	var guidance, functions, procedure, verify []string
	if s.blocks != nil {
		procedure, verify = s.blocks.Procedure, s.blocks.Verify
	}
	for _, inj := range s.Injections {
		switch {
		case strings.HasPrefix(inj.ID, guidancePrefix):
			guidance = append(guidance, inj.Text)
		case strings.HasPrefix(inj.ID, functionsPrefix):
			functions = append(functions, inj.Text)
		case strings.Contains(inj.ID, procedurePart):
			procedure = append(slices.Clip(procedure), inj.Text)
		case strings.Contains(inj.ID, verifyPart):
			verify = append(slices.Clip(verify), inj.Text)
		default:
			constraints = append(slices.Clip(constraints), inj.Text)
		}
	}
	p = p.list("Constraints", constraints, false)
	p = p.list("Procedure", procedure, true)
	p = p.list("Guidance", guidance, false)
	p = p.list("Functions", functions, false)
	var required []string
	var contract []Text
	if s.blocks != nil {
		required = s.blocks.OutputRequired
	}
	if s.Output != nil {
		required = append(slices.Clip(required), s.Output.Hints...)
		if pack, ok := packs[s.Output.ContractRef]; ok {
			contract = append(contract, Text{"In output.artifacts, one object of kind ", string(s.Output.ContractRef),
				" (", pack.Description, ") Shaped like this, each <<fill: …>> replaced by what it asks: ", templates[s.Output.ContractRef]})
		}
	}
	p = p.list("Output required", required, false, contract...)
	p = p.list("Verify", verify, false)
	return p.TrimRight(func(r rune) bool { return r == '\n' })
}

// list adds a titled list of items, numbered or bulleted, each trimmed,
// then the bulleted items of more, each written from its parts.
func (p Text) list(title string, items []string, numbered bool, more ...Text) Text {
	if len(items)+len(more) == 0 {
		return p
	}
	p = append(p, "\n", title, ":\n")
	for i, it := range items {
		mark := "- "
		if numbered {
			mark = strconv.Itoa(i+1) + ". "
		}
		p = append(p, mark, strings.TrimSpace(it), "\n")
	}
	for _, it := range more {
		p = append(append(append(p, "- "), it.TrimLeft(unicode.IsSpace).TrimRight(unicode.IsSpace)...), "\n")
	}
	return p
}
