package execute

import (
	"encoding/json"
	"strconv"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/redact"
)

// WithSecrets redacts every text an agent sends with what s finds, before
// anything is digested or stored. Without it nothing is redacted.
func WithSecrets(s redact.Scanner) Option {
	return func(svc *Service) { svc.secrets = s }
}

// redactOutput replaces secrets in an output's notes, artifacts (every
// string inside, user responses included) and gap resolutions.
func redactOutput(r *redact.Report, o *protocol.Output) *protocol.Output {
	if o == nil {
		return nil
	}
	out := *o
	out.NotesMarkdown = r.String("/output/notesMarkdown", o.NotesMarkdown)
	if o.Artifacts != nil {
		out.Artifacts = make([]json.RawMessage, len(o.Artifacts))
		for i, a := range o.Artifacts {
			out.Artifacts[i] = r.Raw("/output/artifacts/"+strconv.Itoa(i), a)
		}
	}
	if o.ResolvesGaps != nil {
		out.ResolvesGaps = make([]protocol.GapResolution, len(o.ResolvesGaps))
		for i, g := range o.ResolvesGaps {
			g.Summary = r.String("/output/resolvesGaps/"+strconv.Itoa(i)+"/summary", g.Summary)
			out.ResolvesGaps[i] = g
		}
	}
	return &out
}

// redactContinue is continue_workflow's arguments with secrets replaced,
// and the notice saying where (none when nothing was found). The same
// arguments always give the same result, so a replay compares the
// redacted output with the redacted output recorded.
func (s *Service) redactContinue(in protocol.ContinueInput) (protocol.ContinueInput, []event.Notice) {
	r := redact.New(s.secrets)
	in.Context = r.Context("/context", in.Context)
	in.Output = redactOutput(r, in.Output)
	return in, redact.Notice(r.Fields())
}

// redactCheckpoint is checkpoint_workflow's arguments with secrets in the
// notes replaced, and the warning saying where.
func (s *Service) redactCheckpoint(in protocol.CheckpointInput) (protocol.CheckpointInput, []protocol.Warning) {
	r := redact.New(s.secrets)
	out := *in.Output
	out.NotesMarkdown = r.String("/output/notesMarkdown", in.Output.NotesMarkdown)
	in.Output = &out
	return in, protocol.Warnings(redact.Notice(r.Fields()))
}

// redactStart is start_workflow's arguments with secrets in the context
// replaced, and the warning saying where.
func (s *Service) redactStart(in protocol.StartInput) (protocol.StartInput, []protocol.Warning) {
	r := redact.New(s.secrets)
	in.Context = r.Context("/context", in.Context)
	return in, protocol.Warnings(redact.Notice(r.Fields()))
}
