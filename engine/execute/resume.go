package execute

import (
	"context"
	"errors"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/protocol"
	"github.com/workrail/workrail/engine/resume"
	"github.com/workrail/workrail/engine/token"
)

// ResumeSession answers resume_session: the sessions a brand new chat may
// pick up, best first (resume.Rank), at most resume.MaxCandidates, each
// with a stateToken for its run's preferred tip and the rehydrate call
// that continues there. It writes nothing.
func (s *Service) ResumeSession(_ context.Context, raw []byte) protocol.Result {
	r, err := s.resumeSession(raw)
	return s.answer("resume", r, err)
}

func (s *Service) resumeSession(raw []byte) (protocol.Result, error) {
	in, e := protocol.ParseResume(raw)
	if e != nil {
		return nil, badArguments(protocol.ToolResume, raw, e)
	}
	ms, err := s.Matches(resume.NewQuery(in.Query, in.GitBranch, in.GitHeadSHA, in.WorkspacePath))
	if err != nil {
		return nil, err
	}
	cs := make([]protocol.Candidate, 0, len(ms))
	for _, m := range ms {
		c, err := s.candidate(m)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return protocol.NewResume(in, cs), nil
}

// candidate is what an agent is offered of a match: a fresh stateToken
// for the tip, which the rehydrate it is handed reads.
func (s *Service) candidate(m resume.Match) (protocol.Candidate, error) {
	st, err := s.keys.Mint(token.Claims{Kind: token.State, Key: s.keys.Active(), Session: m.Session, Run: m.Run.ID, Node: m.Run.Tip})
	if err != nil {
		return protocol.Candidate{}, err
	}
	return protocol.Candidate{
		Tier: m.Tier, Session: protocol.SessionRef{SessionID: m.Session, RunID: m.Run.ID},
		Workflow:  protocol.WorkflowRef{ID: m.Run.WorkflowID, Name: m.Run.WorkflowName, Hash: m.Run.WorkflowHash},
		TipNodeID: m.Run.Tip, Status: m.Run.Status, SameRepository: m.SameRepo, Snippet: m.Run.Snippet,
		StateToken: st, NextCall: protocol.Rehydrate(st),
	}, nil
}

// Matches are the sessions resume_session offers for q, best first: it
// ranks every session from the resume index and keeps the first
// resume.MaxCandidates that are healthy (a session whose log or indexes
// are damaged cannot be run, so it is never offered). The Console's
// search lists the same.
func (s *Service) Matches(q resume.Query) ([]resume.Match, error) {
	ranked, err := s.store.Resume(q)
	if err != nil {
		return nil, err
	}
	var out []resume.Match
	for m := range ranked {
		if len(out) == resume.MaxCandidates {
			break
		}
		h, err := s.store.Health(m.Session)
		switch {
		case errors.Is(err, engine.ErrNotFound):
			continue // deleted since it was ranked
		case err != nil:
			return nil, err
		case h.Status == Healthy:
			out = append(out, m)
		}
	}
	return out, nil
}
