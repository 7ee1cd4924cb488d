package resume

import (
	"bytes"
	"cmp"
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/workrail/workrail/engine"
)

// Query is what a resume asks for; every part is optional.
type Query struct {
	// Tokens are the Tokens of the query text.
	Tokens []string
	// GitHeadSHA matches a session's latest head exactly (hex case
	// aside); GitBranch its latest branch exactly or as a prefix.
	GitHeadSHA string
	GitBranch  string
	// Workspace, an absolute path, ranks sessions of the repository
	// holding it first within each tier.
	Workspace string
}

// NewQuery builds a query from what an agent or a person typed.
func NewQuery(text, gitBranch, gitHeadSHA, workspace string) Query {
	return Query{Tokens: Tokens(text), GitBranch: gitBranch, GitHeadSHA: gitHeadSHA, Workspace: workspace}
}

// Match is one session as a query ranks it: the best tier it reaches and
// the run a resume continues.
type Match struct {
	Session engine.SessionID
	Tier    Tier
	// SameRepo: the session's repository root holds the query's
	// workspace.
	SameRepo bool
	Run      Run
}

// ranked is a matched session as ranking sorts it: the keys the order
// compares, the session id already as text, and where its run is, small
// enough to move at every swap.
type ranked struct {
	tier     int // the position of the tier in tierOrder
	sameRepo bool
	written  engine.Write
	id       [20]byte // the decimal digits of session, id[:idLen]
	idLen    uint8
	session  engine.SessionID
	rec      *Record
	run      int
}

func (k ranked) match() Match {
	return Match{Session: k.session, Tier: tierOrder[k.tier], SameRepo: k.sameRepo, Run: k.rec.Runs[k.run]}
}

// rank ranks one session: the first tier it reaches, and of the runs
// that reach it the one with the latest tip activity (then the lower run
// id). A session without a run that has a tip has nothing to resume.
func (q Query) rank(r *Record) (ranked, bool) {
	for rank, t := range tierOrder {
		if !q.sessionReaches(r, t) {
			continue
		}
		if i, ok := q.best(r, t); ok {
			k := ranked{tier: rank, sameRepo: q.sameRepo(r.RepoRoot), written: r.Written, session: r.Session, rec: r, run: i}
			k.idLen = uint8(len(strconv.AppendUint(k.id[:0], uint64(r.Session), 10)))
			return k, true
		}
	}
	return ranked{}, false
}

// sessionReaches says whether session r can reach tier t: the
// observation tiers are the session's, decided here for all its runs.
func (q Query) sessionReaches(r *Record, t Tier) bool {
	switch t {
	case TierHeadSHA:
		return q.GitHeadSHA != "" && strings.EqualFold(r.GitHeadSHA, q.GitHeadSHA)
	case TierBranch:
		return q.GitBranch != "" && strings.HasPrefix(r.GitBranch, q.GitBranch)
	}
	return true
}

// best returns the position of the run of r with a tip that reaches tier
// t (the session reaching it) with the latest activity, then the lower id.
func (q Query) best(r *Record, t Tier) (int, bool) {
	at := -1
	for i := range r.Runs {
		ru := &r.Runs[i]
		if ru.Tip == 0 || !q.runReaches(ru, t) {
			continue
		}
		if at < 0 || later(ru, &r.Runs[at]) {
			at = i
		}
	}
	return at, at >= 0
}

// runReaches says whether run ru reaches tier t by its own text.
func (q Query) runReaches(ru *Run, t Tier) bool {
	switch t {
	case TierNotes:
		return containsAll(ru.NoteTokens, q.Tokens)
	case TierWorkflow:
		return containsAll(ru.WorkflowTokens, q.Tokens)
	}
	return true
}

// later: run a's tip saw activity after b's, or as late and a is older.
func later(a, b *Run) bool {
	return a.Activity > b.Activity || a.Activity == b.Activity && a.ID < b.ID
}

// sameRepo reports whether root, a repository's top folder, is the
// query's workspace or holds it.
func (q Query) sameRepo(root string) bool {
	if q.Workspace == "" || root == "" {
		return false
	}
	ws, root := filepath.Clean(q.Workspace), filepath.Clean(root)
	return ws == root || strings.HasPrefix(ws, root+string(filepath.Separator)) || root == string(filepath.Separator)
}

// compare is the locked order: the better tier; within a tier the
// session of the query's repository first, then the session written
// last (the store's write sequence: seed A5's tip activity, an index into
// one session's own log, would put the longer log first, not the more
// recently active one), then the session id compared as text (so
// "ses_10" comes before "ses_9"). It is total, since no two sessions
// share an id, and allocates nothing: a sort calls it for every pair it
// visits.
func compare(a, b ranked) int {
	if a.tier != b.tier {
		return cmp.Compare(a.tier, b.tier)
	}
	if a.sameRepo != b.sameRepo {
		if a.sameRepo {
			return -1
		}
		return 1
	}
	if a.written != b.written {
		return cmp.Compare(b.written, a.written)
	}
	return bytes.Compare(a.id[:a.idLen], b.id[:b.idLen])
}

// Rank matches every record and yields the matches in the locked order
// (see compare), best first. The sort happens before the first match is
// yielded; the records must not change while the matches are read.
func Rank(q Query, recs []*Record) iter.Seq[Match] {
	keys := make([]ranked, 0, len(recs))
	for _, r := range recs {
		if k, ok := q.rank(r); ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compare)
	return func(yield func(Match) bool) {
		for _, k := range keys {
			if !yield(k.match()) {
				return
			}
		}
	}
}
