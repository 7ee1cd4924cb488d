package bundle

import (
	"fmt"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/compile"
)

// Unsealed folds a session its store has just verified (a healthy one)
// into what Markdown and RunMarkdown read, as Read would give it back from
// the session's bundle without redaction, but with no bundle encoded,
// digested or verified: a resource an MCP client reads renders the same
// text as `workrail export --markdown` at a fraction of the cost. Nothing
// from outside the store may come this way; a bundle file goes through
// Read.
func Unsealed(src Source) (*Verified, error) {
	if len(src.Events) == 0 {
		return nil, fmt.Errorf("bundle: unsealed: the session has no events")
	}
	g, ov, err := fold(src.Events[0].Session, src.Events, src.Snapshots)
	if err != nil {
		return nil, fmt.Errorf("bundle: unsealed: %w", err)
	}
	d, err := derive(g, ov, RedactNone, RedactNone)
	if err != nil {
		return nil, fmt.Errorf("bundle: unsealed: %w", err)
	}
	b := &Bundle{Format: Format, Version: SchemaVersion}
	d.fill(b)
	wfs := make(map[engine.WorkflowHash]compile.Compiled, len(src.Workflows))
	for h, raw := range src.Workflows {
		if wfs[h], err = compile.Restore(raw, h); err != nil {
			return nil, fmt.Errorf("bundle: unsealed: %w", err)
		}
	}
	return &Verified{Bundle: b, Events: src.Events, Snapshots: src.Snapshots, Workflows: wfs, Graph: g}, nil
}
