package execute

import (
	"fmt"
	"strings"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

// An output may replace an earlier one of its run (supersedesOutputId):
// the earlier output stays in the log, and readers show the link both
// ways. What it may name is an output on the path from the run's root
// down to the node the call is made at, that node included (what a
// rehydrate's recap lists there, with ids), that no later output on that
// path replaces already: a correction applies to the line of work it
// continues, never to another branch's, and replacing a replaced output
// again names the latest replacement, so the chain stays one line. The
// replacement must itself carry notes or artifacts.

// supersedesPointer is where the reference sits in either tool's
// arguments.
const supersedesPointer = "/output/supersedesOutputId"

// maxReplaceable bounds the outputs a refusal names.
const maxReplaceable = 5

// checkSupersedes checks reference id (none when empty), sent at node at
// of session sid with an output that carries something (has): nil, or
// an INVALID_INPUT error naming what may be replaced instead. Nothing is
// recorded either way.
func checkSupersedes(tx ReadTx, sid engine.SessionID, at project.Node, id engine.EventID, has bool) error {
	if id == "" {
		return nil
	}
	if !has {
		return engine.Errorf(engine.CodeInvalidInput,
			"output.supersedesOutputId names the output your notes or artifacts replace, but this call sends neither, so nothing was recorded. "+
				"Send the corrected notes (or artifacts) with it.").With("pointer", supersedesPointer)
	}
	target, _ := eventIndex(id, sid)
	p, err := walkPath(tx, at, target)
	if err != nil {
		return err
	}
	switch {
	case p.found && p.replacedBy == "":
		return nil
	case p.found:
		return engine.Errorf(engine.CodeInvalidInput,
			"output.supersedesOutputId %q was already replaced by %s, so nothing was recorded. To correct it again, name %s.",
			id, p.replacedBy, p.replacedBy).With("pointer", supersedesPointer)
	}
	return engine.Errorf(engine.CodeInvalidInput,
		"output.supersedesOutputId %q is not an output recorded on this run's path to this step, so nothing was recorded. %s",
		id, p.choices()).With("pointer", supersedesPointer)
}

// pathOutputs is what walkPath saw of the outputs on a path, newest
// first.
type pathOutputs struct {
	found      bool           // the target is on the path
	replacedBy engine.EventID // the newest output on the path replacing it
	standing   []string       // up to maxReplaceable outputs nothing replaces, as "id (step)"
}

// walkPath reads the outputs on the path from node at up to the root,
// newest first, until it meets the output at index target.
func walkPath(tx ReadTx, at project.Node, target engine.EventIndex) (pathOutputs, error) {
	var p pathOutputs
	replaced := map[engine.EventID]engine.EventID{}
	for n := at; ; {
		for i := len(n.Outputs) - 1; i >= 0; i-- {
			e, err := tx.Event(n.Outputs[i])
			if err != nil {
				return p, corrupt(tx.Session(), err)
			}
			d, ok := e.Data.(*event.NodeOutputAppendedData)
			if !ok {
				return p, corrupt(tx.Session(), fmt.Errorf("event %d is %s, not an output", e.Index, e.Kind))
			}
			if e.Index == target {
				p.found, p.replacedBy = true, replaced[e.ID]
				return p, nil
			}
			if _, gone := replaced[e.ID]; !gone && len(p.standing) < maxReplaceable {
				p.standing = append(p.standing, fmt.Sprintf("%s (%s)", e.ID, d.StepID))
			}
			if d.Supersedes != "" {
				if _, ok := replaced[d.Supersedes]; !ok {
					replaced[d.Supersedes] = e.ID
				}
			}
		}
		if n.Parent == 0 {
			return p, nil
		}
		var err error
		if n, err = tx.Node(n.Parent); err != nil {
			return p, corrupt(tx.Session(), err)
		}
	}
}

// choices says what may be replaced from here.
func (p pathOutputs) choices() string {
	if len(p.standing) == 0 {
		return "Nothing is recorded on it yet to replace: leave supersedesOutputId out."
	}
	return "Outputs you can replace here, newest first: " + strings.Join(p.standing, ", ") +
		" (continue_workflow with only the stateToken lists every note with its id)."
}
