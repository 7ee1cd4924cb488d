package catalog_test

import (
	"fmt"
	"testing"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// wfJSON is a minimal valid workflow file; kind "" leaves the key out.
func wfJSON(id, name, kind string) []byte {
	k := ""
	if kind != "" {
		k = fmt.Sprintf(`,"kind":%q`, kind)
	}
	return fmt.Appendf(nil, `{"id":%q,"name":%q,"description":"d","version":"1"%s,"steps":[{"id":"a","title":"A","prompt":"do a"}]}`, id, name, k)
}

// MustLoad loads b as file from src and fails the test on any problem.
func MustLoad(tb testing.TB, b []byte, src catalog.Source, file string) catalog.Entry {
	tb.Helper()
	e, p := catalog.Load(b, src, file)
	if p != nil {
		tb.Fatalf("Load(%s from %s): %v", file, src.Kind, p)
	}
	return e
}

// entry builds a catalog entry by hand, so New can be driven with ids no
// Load would accept from that source (a bundled and a user file can never
// share an id through Load).
func entry(kind catalog.SourceKind, path, file, id, name string, wk workflow.Kind) catalog.Entry {
	return catalog.Entry{
		Source:   catalog.Source{Kind: kind, Path: path},
		File:     file,
		Compiled: compile.Compiled{Workflow: compile.Workflow{ID: engine.WorkflowID(id), Kind: wk, Name: name}},
	}
}

// permutations returns every ordering of in.
func permutations[T any](in []T) [][]T {
	if len(in) <= 1 {
		return [][]T{append([]T(nil), in...)}
	}
	var out [][]T
	for i := range in {
		rest := append(append([]T(nil), in[:i]...), in[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]T{in[i]}, p...))
		}
	}
	return out
}
