package execute

import (
	"encoding/json"
	"errors"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/token"
)

// A scrub replaces a session by a copy holding markers where the
// secrets were (Store.Replace): the copy is a new session, the original
// is deleted, and the agent still holds the original's tokens. Its next
// call gets SESSION_REPLACED, saying so, with a rehydrate of the same
// step in the copy (an import keeps run and node ids), never
// TOKEN_UNKNOWN_NODE.

// replaced is SESSION_REPLACED for a session a scrub replaced by by.
type replaced struct {
	err *engine.Error
	by  engine.SessionID
}

func (r *replaced) Error() string { return r.err.Error() }
func (r *replaced) Unwrap() error { return r.err }

// asReplaced is err as SESSION_REPLACED, nil when err is not about a
// replaced session.
func asReplaced(err error) *replaced {
	var rp *replaced
	if errors.As(err, &rp) {
		return rp
	}
	var re *ReplacedError
	if !errors.As(err, &re) {
		return nil
	}
	return &replaced{by: re.By, err: engine.Errorf(engine.CodeSessionReplaced,
		"session %s was replaced by %s, a copy with its secrets replaced by markers (`workrail scrub`), and deleted: its tokens no longer work, and nothing of this call was recorded. "+
			"Continue in %s: nextCall re-reads this step there and hands out its tokens; then send your output again with the ackToken it gives.",
		re.Session, re.By, re.By).With("sessionId", re.Session.String()).With("replacedBy", re.By.String())}
}

// replacement is err, or, when it is about a replaced session, the
// SESSION_REPLACED error whose nextCall rehydrates, in the copy, the node
// raw's stateToken names.
func (s *Service) replacement(err error, raw []byte) error {
	rp := asReplaced(err)
	if rp == nil {
		return err
	}
	var in struct {
		StateToken string `json:"stateToken"`
	}
	if json.Unmarshal(raw, &in) != nil {
		return rp
	}
	st, perr := s.keys.Parse(in.StateToken, token.State)
	if perr != nil {
		return rp
	}
	st.Session, st.Key = rp.by, s.keys.Active()
	tok, merr := s.keys.Mint(st)
	if merr != nil {
		return rp
	}
	return rehydrateFix(rp.err, tok)
}
