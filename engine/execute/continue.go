package execute

import (
	"context"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/outcome"
	"github.com/workrail/workrail/engine/project"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/token"
)

// Continue advances (ackToken present) or rehydrates (no ackToken) a run.
func (s *Service) Continue(ctx context.Context, raw []byte) protocol.Result {
	r, err := s.cont(ctx, raw, event.OriginAgent)
	return s.about(s.answer("continue", r, s.replacement(err, raw)), raw)
}

func (s *Service) cont(ctx context.Context, raw []byte, origin event.Origin) (protocol.Result, error) {
	in, e := protocol.ParseContinue(raw)
	if e != nil {
		return nil, badArguments(protocol.ToolContinue, raw, e)
	}
	if in.Preferences != nil {
		if e := outcome.CheckPreferences(*in.Preferences, "/preferences"); e != nil {
			return nil, e
		}
	}
	st, err := s.keys.Parse(in.StateToken, token.State)
	if err != nil {
		return nil, engine.AsError(err).With("pointer", "/stateToken")
	}
	n := node{session: st.Session, run: st.Run, id: st.Node}
	if err := s.checkHealth(n.session); err != nil {
		return nil, err
	}
	if in.AckToken == "" {
		return s.rehydrate(n, in)
	}
	ack, err := s.keys.Parse(in.AckToken, token.Ack)
	if err != nil {
		return nil, rehydrateFix(engine.AsError(err).With("pointer", "/ackToken"), in.StateToken)
	}
	if err := token.CheckScope(st, ack); err != nil {
		return nil, rehydrateFix(engine.AsError(err), in.StateToken)
	}
	in, secrets := s.redactContinue(in)
	return s.advance(ctx, n, ack.Attempt, in, secrets, origin)
}

// rehydrate returns the pending step of a node again, with a fresh attempt
// ackToken, the notes recorded so far and, for a node that already has
// children, the branches below it, and warns when the run's pinned
// workflow has drifted from what its id means now. It writes nothing.
func (s *Service) rehydrate(n node, in protocol.ContinueInput) (protocol.Result, error) {
	var p pin
	view := func(fn func(ReadTx) error) error { return s.store.View(n.session, fn) }
	rep, err := inTx(view, func(tx ReadTx) (reply, error) {
		l, err := s.load(tx, n)
		if err != nil {
			return reply{}, err
		}
		p = pinOf(tx, n.run)
		r, err := project.RecapPath(tx, l.info)
		if err != nil {
			return reply{}, err
		}
		facts := moveFacts{recap: &r, rules: true, rehydrate: true}
		if facts.open, err = openAt(tx, l.snap, l.info); err != nil {
			return reply{}, err
		}
		if wentOn, err := project.WentOn(tx, l.info); err != nil {
			return reply{}, err
		} else if wentOn {
			if facts.fork, err = project.Branches(tx, l.info); err != nil {
				return reply{}, err
			}
		}
		return reply{l: l, n: n, attempt: l.info.Attempts, kid: s.keys.Active(), facts: facts, warnings: ignoredOnRehydrate(in)}, nil
	})
	if err != nil {
		return nil, err
	}
	if d, drifted := p.drift(s); drifted && d.PinnedHash == rep.l.c.Hash {
		rep.warnings = append(rep.warnings, protocol.DriftWarning(rep.l.c.Version, d))
	}
	rep.facts.places = p.places(s)
	return s.render(rep)
}

// ignoredOnRehydrate discloses inputs a rehydrate cannot use: it never
// writes, so they would otherwise vanish silently.
func ignoredOnRehydrate(in protocol.ContinueInput) []protocol.Warning {
	var ws []protocol.Warning
	for _, ignored := range []struct {
		set  bool
		code event.NoticeCode
		name string
	}{
		{len(in.Context) > 0, event.NoticeContextIgnoredOnRehydrate, "context was not applied"},
		{in.Output != nil, event.NoticeOutputIgnoredOnRehydrate, "output was not stored"},
		{in.Preferences != nil, event.NoticePreferencesIgnoredOnRehydrate, "preferences were not changed"},
	} {
		if ignored.set {
			ws = append(ws, protocol.Warning{Code: ignored.code,
				Message: ignored.name + ": without ackToken this call only re-reads the pending step. Send it together with ackToken."})
		}
	}
	return ws
}
