package project

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/workflow"
)

// ContextChange is one context key whose value differs between two
// nodes: its value at each (nil where the key is absent).
type ContextChange struct {
	Key           string
	Before, After any
	// Absent says the key is missing at the node before (Before) or after
	// (After).
	AbsentBefore, AbsentAfter bool
}

// ContextDiff lists, sorted by key, the context keys whose values differ
// between the snapshots of nodes before and after (compared as canonical
// JSON, so 1 and 1.0 are the same value).
func ContextDiff(r Reader, before, after engine.NodeID) ([]ContextChange, error) {
	b, err := contextAt(r, before)
	if err != nil {
		return nil, err
	}
	a, err := contextAt(r, after)
	if err != nil {
		return nil, err
	}
	return DiffContext(b, a), nil
}

// DiffContext lists, sorted by key, the keys whose values differ between
// two contexts.
func DiffContext(before, after map[string]any) []ContextChange {
	keys := slices.Collect(maps.Keys(before))
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []ContextChange
	for _, k := range keys {
		bv, inB := before[k]
		av, inA := after[k]
		if inA && inB && sameValue(bv, av) {
			continue
		}
		out = append(out, ContextChange{Key: k, Before: bv, After: av, AbsentBefore: !inB, AbsentAfter: !inA})
	}
	return out
}

func contextAt(r Reader, id engine.NodeID) (map[string]any, error) {
	n, err := r.Node(id)
	if err != nil {
		return nil, err
	}
	snap, err := r.Snapshot(n.Snapshot)
	if err != nil {
		return nil, err
	}
	return snap.Context, nil
}

func sameValue(a, b any) bool {
	raw, err := json.Marshal(b)
	return err == nil && workflow.SameValue(a, raw)
}
