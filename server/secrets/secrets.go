// Package secrets finds secrets in agent-supplied text with gitleaks'
// maintained rule set (its default config, copied from the pinned
// gitleaks module, plus WorkRail's rules.toml in the same format): the
// adapter behind the engine's redact.Scanner port. It imports no
// gitleaks package: it reads the rules itself (rules.go), and does the
// few steps of gitleaks' detector a text needs (keyword filter, regular
// expression, secret group, entropy, allowlists).
package secrets

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/workrail/workrail/engine/redact"
)

// Scanner finds secrets with gitleaks' rules. It is safe for concurrent
// use and deterministic: the same text gives the same findings.
type Scanner struct {
	rules    []rule
	keywords *wordSet
	byWord   [][]int // keyword (in the order added) → indexes of rules
	global   []*allowlist
}

var _ redact.Scanner = (*Scanner)(nil)

// workrailToken is one of WorkRail's own tokens (st.v1.…, ack.v1.…,
// chk.v1.…), handed to agents to send back: signed references, not
// secrets.
var workrailToken = regexp.MustCompile(`^(?:st|ack|chk)\.v1\.[A-Za-z0-9_-]+$`)

// New loads gitleaks' default rules and WorkRail's own. It fails only if
// the embedded rules do not load (a build that cannot work).
func New() (*Scanner, error) {
	rules, global, err := loadRules(source{"gitleaks.toml", gitleaksRules}, source{"rules.toml", workrailRules})
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	// WorkRail's own tokens are allowed by a global allowlist of their
	// expression, which Named and assignments use too.
	s := &Scanner{rules: rules, global: append(global, &allowlist{regex: workrailToken})}
	index := map[string]int{} // lowercased keyword → its place in words
	var words []string
	for i, r := range s.rules {
		for _, k := range r.keywords {
			w, ok := index[k]
			if !ok {
				w = len(words)
				index[k], words = w, append(words, k)
				s.byWord = append(s.byWord, nil)
			}
			s.byWord[w] = append(s.byWord[w], i)
		}
	}
	s.keywords = newWordSet(words)
	return s, nil
}

// Background returns a scanner whose rules load a second after it is
// made, or at its first scan if that comes sooner, so a daemon spends
// the rules' load (about 20 ms and 24 MB of short-lived allocation, half
// of it the allowlists' stopword tries, the rest the expressions)
// neither before it answers nor beside the first page a person opens
// after it starts, on a machine of two cores.
func Background() redact.Scanner {
	get := sync.OnceValues(New)
	time.AfterFunc(loadAfter, func() { get() })
	return pending(get)
}

// loadAfter is how long after a daemon starts its rules load unasked.
const loadAfter = time.Second

// pending is a scanner whose rules are still loading.
type pending func() (*Scanner, error)

// Scan waits for the rules, then scans. The embedded rules load in every
// build whose tests pass, so a failure here is a programmer's bug.
func (p pending) Scan(text string) []redact.Finding {
	s, err := p()
	if err != nil {
		panic(err)
	}
	return s.Scan(text)
}

// Named waits for the rules, then scans.
func (p pending) Named(name, value string) []redact.Finding {
	s, err := p()
	if err != nil {
		panic(err)
	}
	return s.Named(name, value)
}

// MustNew is New for tests: it panics where New would fail.
func MustNew() *Scanner {
	s, err := New()
	if err != nil {
		panic(err)
	}
	return s
}

// Scan finds the secrets in text: each the secret part of a rule's match
// (its secret group) that passes the rule's entropy and no allowlist, and
// each value assigned to a secret's name (assign.go), in the text and in
// what is encoded in it (decode.go).
func (s *Scanner) Scan(text string) []redact.Finding {
	return specific(append(s.find(text), s.decoded(text)...))
}

// Named finds the secrets in value, the value of a field called name:
// what Scan finds in "name:\nvalue" (gitleaks' generic rule reads the
// name before a value; the value's first line still starts a line),
// within the value; and, when the name is a secret's (names.go) and the
// value no placeholder, all of the value, named by a specific rule that
// matched in it if one did.
func (s *Scanner) Named(name, value string) []redact.Finding {
	prefix := len(name) + 2
	var out []redact.Finding
	for _, f := range s.Scan(name + ":\n" + value) {
		if f.End > prefix {
			out = append(out, redact.Finding{Start: max(f.Start-prefix, 0), End: f.End - prefix, Rule: f.Rule})
		}
	}
	if v := strings.TrimSpace(value); secretName(name) && !placeholder(v) && !workrailToken.MatchString(v) {
		out = append(out, redact.Finding{Start: 0, End: len(value), Rule: assignmentRule})
	}
	return specific(out)
}

// find is what the rules find in text as it is.
func (s *Scanner) find(text string) []redact.Finding {
	lower := lowerASCII(text)
	var out []redact.Finding
	for _, i := range s.candidates(lower) {
		r := &s.rules[i]
		if r.gate == nil {
			out = s.match(out, r, text, 0, len(text))
			continue
		}
		for _, w := range windows(text, r.gate.starts(text, lower)) {
			out = s.match(out, r, text, w.start, w.end)
		}
	}
	return append(out, assignments(text, lower)...)
}

// specific names by the other rule what a generic rule (gitleaks'
// generic-*, and secret-assignment) finds where another rule finds
// something too, as gitleaks prefers the specific finding: the marker
// then says what the secret is. What the generic finding covers beyond
// the other is still redacted (a password's tail after an AWS key id).
func specific(fs []redact.Finding) []redact.Finding {
	out := fs[:0:0]
	for _, f := range fs {
		if !generic(f.Rule) {
			out = append(out, f)
			continue
		}
		i := slices.IndexFunc(fs, func(g redact.Finding) bool {
			return !generic(g.Rule) && g.Start < f.End && f.Start < g.End
		})
		switch {
		case i < 0:
			out = append(out, f)
		case f.Start < fs[i].Start || f.End > fs[i].End:
			out = append(out, redact.Finding{Start: f.Start, End: f.End, Rule: fs[i].Rule})
		}
	}
	return out
}

func generic(rule string) bool { return strings.HasPrefix(rule, "generic") || rule == assignmentRule }

// candidates lists, in rule order, the rules whose keywords the text
// (lower, in lower case) holds, and every rule without keywords:
// gitleaks' own pre-filter.
func (s *Scanner) candidates(lower []byte) []int {
	seen := make([]bool, len(s.rules))
	for i, r := range s.rules {
		seen[i] = len(r.keywords) == 0
	}
	s.keywords.each(lower, func(_, w int) bool {
		for _, i := range s.byWord[w] {
			seen[i] = true
		}
		return true
	})
	var out []int
	for i, ok := range seen {
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// lowerASCII is text with ASCII letters in lower case (keywords are
// ASCII, and case elsewhere does not matter to finding them).
func lowerASCII(text string) []byte {
	b := []byte(text)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// match adds the findings of rule r in text[start:end].
func (s *Scanner) match(out []redact.Finding, r *rule, text string, start, end int) []redact.Finding {
	for _, m := range r.regex.FindAllStringSubmatchIndex(text[start:end], -1) {
		for j := range m {
			if m[j] >= 0 {
				m[j] += start
			}
		}
		a, b := secretOf(r, m)
		if a == b {
			continue
		}
		secret := text[a:b]
		if r.entropy != 0 && entropy(secret) <= r.entropy {
			continue
		}
		whole, line := strings.Trim(text[m[0]:m[1]], "\n"), lineOf(text, m[0], m[1])
		if allowed(s.global, secret, whole, line) || allowed(r.allowlists, secret, whole, line) {
			continue
		}
		out = append(out, redact.Finding{Start: a, End: b, Rule: r.id})
	}
	return out
}

// secretOf is where a match's secret is: its secret group, else its first
// non-empty group, else the whole match without surrounding newlines.
func secretOf(r *rule, m []int) (int, int) {
	if g := r.secretGroup; g > 0 && 2*g+1 < len(m) {
		return max(m[2*g], 0), max(m[2*g+1], 0)
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	a, b := m[0], m[1]
	return a, b
}

// allowed tells whether one of lists allows a finding.
func allowed(lists []*allowlist, secret, match, line string) bool {
	return slices.ContainsFunc(lists, func(a *allowlist) bool { return a.allows(secret, match, line) })
}

// lineOf is the whole lines text[a:b] lies on.
func lineOf(text string, a, b int) string {
	start := strings.LastIndexByte(text[:a], '\n') + 1
	end := strings.IndexByte(text[b:], '\n')
	if end < 0 {
		return text[start:]
	}
	return text[start : b+end]
}

// entropy is the Shannon entropy of s as gitleaks computes it (symbol
// counts over runes, frequencies over bytes), summed in a fixed order so
// the same text always gives the same bits.
func entropy(s string) float64 {
	counts := map[rune]int{}
	var order []rune
	for _, c := range s {
		if counts[c] == 0 {
			order = append(order, c)
		}
		counts[c]++
	}
	inv := 1.0 / float64(len(s))
	var e float64
	for _, c := range order {
		f := float64(counts[c]) * inv
		e -= f * math.Log2(f)
	}
	return e
}
