package project

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/canon"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/run"
)

// WriteJSON writes d to w as encoding/json's Encoder with HTML escaping
// off writes it, byte for byte: the value, then a newline. It is written
// by hand, field by field in the order and with the omissions of
// Document's tags, because reflection (encoding/json's or json/v2's)
// took milliseconds over a 1,000-row run where appending takes a
// fraction of one. TestWriteJSONIsEncodingJSON and
// TestProjectionOfGeneratedRuns hold it to encoding/json's bytes (a field
// added to a Document type and not here fails them), FuzzWriteJSON its
// strings.
func (d *Document) WriteJSON(w io.Writer) error {
	b, err := d.appendHead(make([]byte, 0, 2*flushAt))
	if err != nil {
		return err
	}
	b = append(b, `,"rows":`...)
	if d.Rows == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Rows {
			if i > 0 {
				b = append(b, ',')
			}
			if b = appendRow(b, &d.Rows[i]); len(b) >= flushAt {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
		b = append(b, ']')
	}
	_, err = w.Write(append(b, '}', '\n'))
	return err
}

// flushAt is how much WriteJSON holds before it writes.
const flushAt = 32 << 10

// appendHead appends d up to its rows.
func (d *Document) appendHead(b []byte) ([]byte, error) {
	b = appendID(append(b, `{"sessionId":`...), "ses_", uint64(d.SessionID))
	b = appendID(append(b, `,"runId":`...), "run_", uint64(d.RunID))
	b = appendString(append(b, `,"workflowId":`...), string(d.WorkflowID))
	b = appendString(append(b, `,"workflowHash":`...), d.WorkflowHash.String())
	if d.RestartOf != 0 {
		b = appendID(append(b, `,"restartOf":`...), "run_", uint64(d.RestartOf))
	}
	b = appendString(append(b, `,"verdict":`...), string(d.Verdict))
	b = appendNode(append(b, `,"tip":`...), d.Tip)
	b = appendList(append(b, `,"openGaps":`...), d.OpenGaps, appendGap)
	b = strconv.AppendInt(append(b, `,"stepsDone":`...), int64(d.StepsDone), 10)
	b = strconv.AppendInt(append(b, `,"progress":{"step":`...), int64(d.Progress.Step), 10)
	b = strconv.AppendInt(append(b, `,"steps":`...), int64(d.Progress.Steps), 10)
	b = append(b, `,"loops":`...)
	var err error
	if d.Progress.Loops == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Progress.Loops {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendLoopPlace(b, &d.Progress.Loops[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return appendList(append(b, `},"branches":`...), d.Branches, appendBranch), nil
}

func appendGap(b []byte, g *DocGap) []byte {
	b = appendString(append(b, `{"gapId":`...), string(g.GapID))
	b = appendString(append(b, `,"severity":`...), string(g.Severity))
	b = appendString(append(b, `,"reason":`...), string(g.Reason))
	if g.StepID != "" {
		b = appendString(append(b, `,"stepId":`...), string(g.StepID))
	}
	b = appendNode(append(b, `,"row":`...), g.Row)
	b = appendNode(append(b, `,"nodeId":`...), g.NodeID)
	b = appendString(append(b, `,"branch":`...), g.Branch)
	return append(b, '}')
}

func appendLoopPlace(b []byte, l *run.LoopPlace) ([]byte, error) {
	b = appendString(append(b, `{"loopId":`...), string(l.LoopID))
	b = appendString(append(b, `,"title":`...), l.Title)
	b = strconv.AppendInt(append(b, `,"iteration":`...), int64(l.Iteration), 10)
	b = strconv.AppendInt(append(b, `,"maxIterations":`...), int64(l.MaxIterations), 10)
	if l.ItemName != "" {
		b = appendString(append(b, `,"itemName":`...), l.ItemName)
	}
	if l.Item != nil { // any value: encoding/json writes it
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(l.Item); err != nil {
			return nil, err
		}
		b = append(append(b, `,"item":`...), bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
	}
	return append(b, '}'), nil
}

func appendBranch(b []byte, br *DocBranch) []byte {
	b = appendString(append(b, `{"letter":`...), br.Letter)
	b = appendString(append(b, `,"state":`...), string(br.State))
	b = appendString(append(b, `,"origin":`...), string(br.Origin))
	b = appendList(append(b, `,"nodes":`...), br.Nodes, appendNodeAt)
	if br.From != 0 {
		b = appendNode(append(b, `,"from":`...), br.From)
	}
	b = appendNode(append(b, `,"end":`...), br.End)
	if len(br.Changed) > 0 {
		b = appendList(append(b, `,"changed":`...), br.Changed, func(b []byte, s *string) []byte { return appendString(b, *s) })
	}
	return append(b, '}')
}

func appendRow(b []byte, r *DocRow) []byte {
	b = appendNode(append(b, `{"nodeId":`...), r.NodeID)
	b = appendString(append(b, `,"stepId":`...), string(r.StepID))
	b = appendString(append(b, `,"title":`...), r.Title)
	b = appendString(append(b, `,"branch":`...), r.Branch)
	b = strconv.AppendInt(append(b, `,"blockedAttempts":`...), int64(r.BlockedAttempts), 10)
	b = strconv.AppendBool(append(b, `,"done":`...), r.Done)
	if r.Loop == nil {
		b = append(b, `,"loop":null`...)
	} else {
		b = appendString(append(b, `,"loop":{"loopId":`...), string(r.Loop.LoopID))
		b = append(strconv.AppendInt(append(b, `,"iteration":`...), int64(r.Loop.Iteration), 10), '}')
	}
	o := &r.Outcomes
	for _, n := range [...]struct {
		key string
		v   int
	}{{`,"outcomes":{"openGaps":`, o.OpenGaps}, {`,"critical":`, o.Critical}, {`,"userDependencies":`, o.UserDependencies},
		{`,"resolvedGaps":`, o.ResolvedGaps}, {`,"blocked":`, o.Blocked}, {`,"divergences":`, o.Divergences},
		{`,"capabilitiesMissing":`, o.CapabilitiesMissing}, {`,"capabilitiesObserved":`, o.CapabilitiesObserved},
		{`,"checkpoints":`, o.Checkpoints}, {`,"refused":`, o.Refused}, {`,"notRecorded":`, o.NotRecorded}} {
		b = strconv.AppendInt(append(b, n.key...), int64(n.v), 10)
	}
	b = appendList(append(b, `},"attempts":`...), r.Attempts, appendAttempt)
	b = appendList(append(b, `,"checkpoints":`...), r.Checkpoints, appendNodeAt)
	if r.Next != 0 {
		b = appendNode(append(b, `,"next":`...), r.Next)
	}
	b = appendList(append(b, `,"forks":`...), r.Forks, appendNodeAt)
	return append(b, '}')
}

func appendAttempt(b []byte, a *DocAttempt) []byte {
	b = appendNode(append(b, `{"nodeId":`...), a.NodeID)
	b = strconv.AppendUint(append(b, `,"attempt":`...), uint64(a.Attempt), 10)
	b = appendString(append(b, `,"outcome":`...), string(a.Outcome))
	if a.Console {
		b = append(b, `,"console":true`...)
	}
	b = appendList(append(b, `,"blockers":`...), a.Blocker, func(b []byte, c *event.BlockerCode) []byte { return appendString(b, string(*c)) })
	if a.To != 0 {
		b = appendNode(append(b, `,"to":`...), a.To)
	}
	b = appendList(append(b, `,"refused":`...), a.Refused, func(b []byte, r *Refusal) []byte {
		b = appendString(append(b, `{"code":`...), string(r.Code))
		return append(appendString(append(b, `,"why":`...), r.Why), '}')
	})
	b = appendList(append(b, `,"notRecorded":`...), a.NotRecorded, func(b []byte, g *CarriedGap) []byte {
		b = append(b, '{')
		if g.Severity != "" {
			b = append(appendString(append(b, `"severity":`...), g.Severity), ',')
		}
		return append(appendString(append(b, `"summary":`...), g.Summary), '}')
	})
	b = appendList(append(b, `,"gaps":`...), a.Gaps, func(b []byte, id *engine.EventID) []byte { return appendString(b, string(*id)) })
	return append(b, '}')
}

// appendList appends s as a JSON list (null when nil, as encoding/json
// writes a nil slice), each item by item.
func appendList[T any](b []byte, s []T, item func([]byte, *T) []byte) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, &s[i])
	}
	return append(b, ']')
}

// appendID appends an id as its MarshalText writes it: prefix and number.
func appendID(b []byte, prefix string, n uint64) []byte {
	b = append(append(b, '"'), prefix...)
	return append(strconv.AppendUint(b, n, 10), '"')
}

func appendNode(b []byte, n engine.NodeID) []byte { return appendID(b, "node_", uint64(n)) }

func appendNodeAt(b []byte, n *engine.NodeID) []byte { return appendNode(b, *n) }

// appendString appends s quoted as encoding/json quotes it with HTML
// escaping off, as the document was written before.
func appendString(b []byte, s string) []byte { return canon.AppendString(b, s, canon.Go) }
