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
func guidanceOf(s workflow.Step, scopes [][]workflow.FunctionDef, prov Provenance) []Injection {
	var out []Injection
	for i, g := range s.Guidance {
		out = append(out, Injection{ID: fmt.Sprintf("%s%d", guidancePrefix, i+1), Text: g, Provenance: prov})
	}
	seen := map[string]bool{}
	for _, name := range s.FunctionReferences {
		if seen[name] {
			continue
		}
		seen[name] = true
		if d, ok := findFunction(name, scopes); ok {
			out = append(out, Injection{ID: functionsPrefix + name, Text: functionText(d), Provenance: prov})
		}
	}
	return out
}

func findFunction(name string, scopes [][]workflow.FunctionDef) (workflow.FunctionDef, bool) {
	for i := len(scopes) - 1; i >= 0; i-- {
		for _, d := range scopes[i] {
			if d.Name == name {
				return d, true
			}
		}
	}
	return workflow.FunctionDef{}, false
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
	}
	return fmt.Sprintf("%s(%s): %s", d.Name, strings.Join(params, "; "), strings.TrimSpace(d.Definition))
}
