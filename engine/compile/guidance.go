package compile

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine/workflow"
)

// Injection id prefixes of the blocks a step's own guidance and function
// references add; render gives each its own section.
const (
	guidancePrefix  = "wr.guidance/"
	functionsPrefix = "wr.functions/"
)

// guidanceOf is what a step's guidance and functionReferences add to its
// prompt: each guidance line, then each referenced definition, found in
// the innermost scope that defines it (the step, its loops, the
// workflow). The checker has made sure every reference resolves.
func (lw *lowering) guidanceOf(s workflow.Step, scopes [][]workflow.FunctionDef) []Injection {
	var out []Injection
	for i, g := range s.Guidance {
		out = append(out, Injection{ID: fmt.Sprintf("%s%d", guidancePrefix, i+1), Text: g, Provenance: lw.prov})
	}
	seen := map[string]bool{}
	for _, name := range s.FunctionReferences {
		if seen[name] {
			continue
		}
		seen[name] = true
		if d := findFunction(name, scopes); d != nil {
			out = append(out, Injection{ID: functionsPrefix + name, Text: lw.functionText(d), Provenance: lw.prov})
		}
	}
	return out
}

// functionText is d's text, written once per lowering.
func (lw *lowering) functionText(d *workflow.FunctionDef) string {
	if t, ok := lw.texts[d]; ok {
		return t
	}
	if lw.texts == nil {
		lw.texts = map[*workflow.FunctionDef]string{}
	}
	t := functionText(*d)
	lw.texts[d] = t
	return t
}

// findFunction is the definition of name in the innermost scope that has
// one, nil when none does.
func findFunction(name string, scopes [][]workflow.FunctionDef) *workflow.FunctionDef {
	for i := len(scopes) - 1; i >= 0; i-- {
		for j := range scopes[i] {
			if scopes[i][j].Name == name {
				return &scopes[i][j]
			}
		}
	}
	return nil
}

// functionText is a definition as the agent reads it: its signature,
// then what it does.
func functionText(d workflow.FunctionDef) string {
	params := make([]string, len(d.Parameters))
	for i, p := range d.Parameters {
		params[i] = p.Name + " " + p.Type
		if !p.Required {
			params[i] += " (optional)"
		}
		if p.Description != "" {
			params[i] += ": " + p.Description
		}
		if len(p.Enum) > 0 {
			vals := make([]string, len(p.Enum))
			for j, v := range p.Enum {
				vals[j] = string(v)
			}
			params[i] += " (one of " + strings.Join(vals, ", ") + ")"
		}
		if len(p.Default) > 0 {
			params[i] += " (default " + string(p.Default) + ")"
		}
	}
	return fmt.Sprintf("%s(%s): %s", d.Name, strings.Join(params, "; "), strings.TrimSpace(d.Definition))
}
