// Package resume owns how a brand new chat finds the work it should pick
// up (resume_session): the text normalization every query and candidate
// goes through, the per-session record the resume index keeps, the closed
// set of match tiers, and the locked ranking and budgets. It is pure: the
// stores fold records through it and rank them with it.
package resume

import (
	"slices"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/workrail/workrail/engine/project"
)

// Budgets of one answer (locked): at most MaxCandidates sessions, each
// with a snippet of at most MaxSnippetBytes of UTF-8.
const (
	MaxCandidates   = 5
	MaxSnippetBytes = 1024
)

// What a run is matched by (the notes tier): the latest notes at its
// preferred tip, those on the tip and the RecentNodes-1 nodes above it,
// newest first, within RecentNotesBytes.
const (
	RecentNodes      = 8
	RecentNotesBytes = 2 << 10
)

// Tokens normalizes text the locked way and returns its tokens, sorted
// and without repeats: NFKC, then lowercase (Unicode's default mapping,
// never a locale's), then every maximal run of [a-z0-9_-]. Anything else
// separates tokens, so a letter that stays outside ASCII after NFKC
// splits a word: "Ｃａｆé" is "café", whose one token is "caf".
func Tokens(text string) []string { return tokenize(normalize(text)) }

// normalize is text as Tokens reads it: NFKC, then lowercase.
func normalize(text string) string { return strings.ToLower(norm.NFKC.String(text)) }

// tokenize returns the tokens of normalized text s, sorted and without
// repeats.
func tokenize(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !tokenByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tokenByte reports whether b belongs to a token. Bytes of multi-byte
// UTF-8 sequences are all ≥ 0x80, so they never do.
func tokenByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// containsAll reports whether every token of want (sorted) is in have
// (sorted): set membership, never a substring. An empty want matches
// nothing, so a query without words never claims a text match.
func containsAll(have, want []string) bool {
	if len(want) == 0 {
		return false
	}
	for _, w := range want {
		if _, ok := slices.BinarySearch(have, w); !ok {
			return false
		}
	}
	return true
}

// Snippet cuts notes to MaxSnippetBytes on a rune boundary, ending a cut
// one with the same truncation marker recaps use (project.Cut).
func Snippet(notes string) string { return project.Cut(notes, MaxSnippetBytes) }

// Tier is the closed set of reasons a session is offered, best first.
// Tiers are strict: a session in a better tier always ranks above one in
// a worse, whatever their activity.
type Tier string

// The tiers, in rank order.
const (
	// TierHeadSHA: the session's latest git_head_sha observation equals
	// the one asked for.
	TierHeadSHA Tier = "git_head_sha"
	// TierBranch: the session's latest git_branch observation equals the
	// one asked for or starts with it.
	TierBranch Tier = "git_branch"
	// TierNotes: every query token is among the tokens of the notes of
	// a run's preferred tip's recap.
	TierNotes Tier = "notes"
	// TierWorkflow: every query token is among the tokens of a run's
	// workflow id and name.
	TierWorkflow Tier = "workflow"
	// TierRecency: nothing matched; offered by recent activity alone
	// (the store's write sequence, not a time: see Record.Written).
	TierRecency Tier = "recency"
)

// tierOrder is every tier, best first: a tier's rank is its position.
var tierOrder = [...]Tier{TierHeadSHA, TierBranch, TierNotes, TierWorkflow, TierRecency}

// Tiers lists every tier, best first.
func Tiers() []Tier { return slices.Clone(tierOrder[:]) }
