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
	var err error
	w.Steps = mapSteps(w.Steps, func(s Step) Step {
		if err != nil {
			return s
		}
		p := pieces(s, w.Contracts, templates)
		n := p.len()
		total += n
		switch {
		case n > limits.Prompt:
			err = &LimitError{Kind: LimitPrompt, Size: n, Limit: limits.Prompt, Pointer: s.ptr, Step: s.ID}
		case total > limits.Bytes:
			err = &LimitError{Kind: LimitPrompts, Size: total, Limit: limits.Bytes, Pointer: s.ptr}
		default:
			s.Prompt = p.String()
		}
		return s
	})
	return w, err
}

// prompt is a prompt as the texts it is written from, so that its length
// is known before it is written; the texts are shared, not copied.
type prompt []string

func (p prompt) len() int {
	n := 0
	for _, s := range p {
		n += len(s)
	}
	return n
}

func (p prompt) String() string {
	var b strings.Builder
	b.Grow(p.len())
	for _, s := range p {
		b.WriteString(s)
	}
	return b.String()
}

// pieces is the prompt of step s: its role, goal or text, constraints
// (with injected blocks), procedure, guidance, functions, required
// output (with the contract's template, from templates) and checks.
func pieces(s Step, packs map[workflow.ContractRef]ContractPack, templates map[workflow.ContractRef]string) prompt {
	var p prompt
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
	var required []prompt
	if s.blocks != nil {
		required = items(s.blocks.OutputRequired)
	}
	if s.Output != nil {
		required = append(required, items(s.Output.Hints)...)
		if pack, ok := packs[s.Output.ContractRef]; ok {
			required = append(required, prompt{"In output.artifacts, one object of kind ", string(s.Output.ContractRef),
				" (", pack.Description, ") Shaped like this, each <<fill: …>> replaced by what it asks: ", templates[s.Output.ContractRef]})
		}
	}
	p = p.list("Output required", required, false)
	if s.blocks != nil {
		p = p.list("Verify", items(s.blocks.Verify), false)
	}
	return p.trimRight(func(r rune) bool { return r == '\n' })
}

// items are texts as list items of one piece each.
func items(texts []string) []prompt {
	out := make([]prompt, len(texts))
	for i, t := range texts {
		out[i] = prompt{t}
	}
	return out
}

// list adds a titled list of items, numbered or bulleted, each trimmed.
func (p prompt) list(title string, items []prompt, numbered bool) prompt {
	if len(items) == 0 {
		return p
	}
	p = append(p, "\n", title, ":\n")
	for i, it := range items {
		mark := "- "
		if numbered {
			mark = strconv.Itoa(i+1) + ". "
		}
		p = append(append(p, mark), it.trimLeft().trimRight(unicode.IsSpace)...)
		p = append(p, "\n")
	}
	return p
}

// trimLeft drops the white space the text starts with.
func (p prompt) trimLeft() prompt {
	for len(p) > 0 {
		if first := strings.TrimLeftFunc(p[0], unicode.IsSpace); first == p[0] {
			return p
		} else if first != "" {
			return append(prompt{first}, p[1:]...)
		}
		p = p[1:]
	}
	return p
}

// trimRight drops what the text ends with that cut says to cut.
func (p prompt) trimRight(cut func(rune) bool) prompt {
	for len(p) > 0 {
		if last := strings.TrimRightFunc(p[len(p)-1], cut); last == p[len(p)-1] {
			return p
		} else if last != "" {
			return append(p[:len(p)-1:len(p)-1], last)
		}
		p = p[:len(p)-1]
	}
	return p
}
