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
// Each prompt is measured before it is written: one over limits.Prompt,
// or one that takes the prompts together over limits.Bytes, is a
// *LimitError, and no prompt past it is written.
func renderPrompts(w Workflow, limits Limits) (Workflow, error) {
	templates := make(map[workflow.ContractRef]string, len(w.Contracts))
	for ref, p := range w.Contracts {
		templates[ref] = string(Template(ref, p).Value) // once: every step naming it shares the text
	}
	total := 0
	var err *LimitError
	w.Steps = mapSteps(w.Steps, func(s Step) Step {
		p := pieces(s, w.Contracts, templates)
		n := p.Len()
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
	var guidance, functions []string
	for _, inj := range s.Injections {
		switch {
		case strings.HasPrefix(inj.ID, guidancePrefix):
			guidance = append(guidance, inj.Text)
		case strings.HasPrefix(inj.ID, functionsPrefix):
			functions = append(functions, inj.Text)
		default:
			constraints = append(slices.Clip(constraints), inj.Text)
		}
	}
	p = p.list("Constraints", items(constraints), false)
	if s.blocks != nil {
		p = p.list("Procedure", items(s.blocks.Procedure), true)
	}
	p = p.list("Guidance", items(guidance), false)
	p = p.list("Functions", items(functions), false)
	var required []Text
	if s.blocks != nil {
		required = items(s.blocks.OutputRequired)
	}
	if s.Output != nil {
		required = append(required, items(s.Output.Hints)...)
		if pack, ok := packs[s.Output.ContractRef]; ok {
			required = append(required, Text{"In output.artifacts, one object of kind ", string(s.Output.ContractRef),
				" (", pack.Description, ") Shaped like this, each <<fill: …>> replaced by what it asks: ", templates[s.Output.ContractRef]})
		}
	}
	p = p.list("Output required", required, false)
	if s.blocks != nil {
		p = p.list("Verify", items(s.blocks.Verify), false)
	}
	return p.TrimRight(func(r rune) bool { return r == '\n' })
}

// items are texts as list items of one piece each.
func items(texts []string) []Text {
	out := make([]Text, len(texts))
	for i, t := range texts {
		out[i] = Text{t}
	}
	return out
}

// list adds a titled list of items, numbered or bulleted, each trimmed.
func (p Text) list(title string, items []Text, numbered bool) Text {
	if len(items) == 0 {
		return p
	}
	p = append(p, "\n", title, ":\n")
	for i, it := range items {
		mark := "- "
		if numbered {
			mark = strconv.Itoa(i+1) + ". "
		}
		p = append(append(p, mark), it.TrimLeft(unicode.IsSpace).TrimRight(unicode.IsSpace)...)
		p = append(p, "\n")
	}
	return p
}
