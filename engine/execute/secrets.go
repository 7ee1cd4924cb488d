package execute

import (
	"encoding/json"
	"strconv"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/bundle"
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

// FindSecrets lists where session id, as stored, holds text the secret
// scanner matches (written before secrets were redacted, or matched by a
// rule added since). It writes nothing.
func (s *Service) FindSecrets(id engine.SessionID) ([]bundle.SecretFinding, error) {
	src, err := s.sourceOf(id, "scanned")
	if err != nil {
		return nil, err
	}
	return bundle.FindSecrets(src, s.secrets), nil
}

// Scrubbed is what ScrubSecrets did: the findings, the new session the
// redacted copy was imported as (none when there was nothing to scrub),
// and the original's last event, read when the copy was made.
type Scrubbed struct {
	Findings []bundle.SecretFinding `json:"findings"`
	Import   *bundle.ImportReport   `json:"import,omitempty"`
	Head     engine.EventIndex      `json:"head"`
}

// ScrubSecrets imports a copy of session id with every secret replaced by
// its marker, through the bundle path (built, verified and imported as
// any bundle: a new session). The original is left for the caller to
// delete, if it has not been written to since Head.
func (s *Service) ScrubSecrets(id engine.SessionID) (Scrubbed, error) {
	src, err := s.sourceOf(id, "scrubbed")
	if err != nil {
		return Scrubbed{}, err
	}
	out := Scrubbed{Head: src.Events[len(src.Events)-1].Index}
	clean, fs := bundle.ScrubSecrets(src, s.secrets)
	out.Findings = fs
	if len(fs) == 0 {
		return out, nil
	}
	b, err := bundle.Build(clean, bundle.ExportOptions{})
	if err != nil {
		return out, s.internal("scrub", err)
	}
	raw, err := bundle.Encode(b)
	if err != nil {
		return out, s.internal("scrub", err)
	}
	rep, err := s.Import(raw, false)
	if err != nil {
		return out, err
	}
	out.Import = &rep
	return out, nil
}
