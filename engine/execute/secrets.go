package execute

import (
	"encoding/json"
	"errors"
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

// Scrubbed is what ScrubSecrets did: the findings, the session the
// redacted copy is (none when there was nothing to scrub), and the
// original's last event, which the copy ends on.
type Scrubbed struct {
	Findings []bundle.SecretFinding `json:"findings"`
	Copy     engine.SessionID       `json:"copySessionId,omitzero"`
	Head     engine.EventIndex      `json:"head"`
}

// errClean rolls back a scrub of a session holding no secret.
var errClean = errors.New("execute: nothing to scrub")

// ScrubSecrets replaces session id by a copy with every secret replaced
// by its marker, in one write (Store.Replace): the session is read, its
// copy built as a bundle, verified and imported as any import is (a new
// session, the same run and node ids), and the original deleted, with no
// write of an agent in between. The writer is held meanwhile: a scrub is
// rare, and this way it neither misses what an agent wrote nor leaves
// two sessions. An agent that then writes with the original's tokens
// gets SESSION_REPLACED with a rehydrate of its step in the copy.
func (s *Service) ScrubSecrets(id engine.SessionID) (Scrubbed, error) {
	if err := s.healthy(id, "scrubbed: a bundle holds only a log that verifies"); err != nil {
		return Scrubbed{}, err
	}
	var out Scrubbed
	copyID, err := s.store.Replace(id, func(old ReadTx, tx Tx) error {
		out = Scrubbed{Head: old.Head()}
		src, err := source(old)
		if err != nil {
			return corrupt(id, err)
		}
		clean, fs := bundle.ScrubSecrets(src, s.secrets)
		out.Findings = fs
		if len(fs) == 0 {
			return errClean
		}
		v, err := verifiedCopy(clean)
		if err != nil {
			return err
		}
		return importInto(tx, v)
	})
	switch rp := asReplaced(err); {
	case errors.Is(err, errClean):
		return out, nil
	case rp != nil:
		return out, rp // replaced by another scrub meanwhile
	case err != nil:
		return out, s.internal("scrub", err)
	}
	out.Copy = copyID
	return out, nil
}

// verifiedCopy is src as a bundle, encoded and read back as an import
// reads one.
func verifiedCopy(src bundle.Source) (*bundle.Verified, error) {
	b, err := bundle.Build(src, bundle.ExportOptions{})
	if err != nil {
		return nil, err
	}
	raw, err := bundle.Encode(b)
	if err != nil {
		return nil, err
	}
	return bundle.Read(raw)
}
