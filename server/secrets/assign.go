package secrets

import (
	"bytes"
	"slices"
	"strings"
	"unicode"

	"github.com/workrail/workrail/engine/redact"
)

// assignmentRule names the findings of values assigned to a secret's
// name (names.go): gitleaks' generic rules want a value that looks
// random, so a password with symbols, or a short one, passes them.
const assignmentRule = "secret-assignment"

// The assignments a text holds, in the shapes secrets are pasted in:
//
//	DB_PASSWORD=p@ss!word              an env file line (export, set, ENV, ARG before it)
//	  password: hunter2 !              a YAML or properties line
//	"apiKey": "…"   'token' => '…'     a quoted value, anywhere
//	docker run -e ADMIN_PASSWORD=x!    an unquoted value after =, anywhere
//	https://host/cb?token=…&page=2     a query parameter
//	curl -H "X-Auth-Token: …"          a header in a string
//
// A value is taken whatever its characters: a quoted one to its closing
// quote; an unquoted one on a line the name starts (after indentation,
// a list or comment mark, or export/set/ENV/ARG) to the end of the line;
// an unquoted one after = elsewhere to the next space, quote or , ; ) ] };
// a query parameter's to & or #; a header in a string ("x-api-key: …")
// to the string's end. An unquoted value after a colon in the
// middle of a line is prose ("the token: we refresh it hourly"), not an
// assignment. A value that stands for a secret (placeholder) is not
// taken, nor one of WorkRail's own tokens. (gitleaks' global allowlist
// is not applied: it allows any value starting with "true" or holding
// "false", which a password may.)

// hasStem reports whether a name (lower: in lower case) holds what a
// secret's name holds somewhere (pass, pwd, secret, token, key): a quick
// test before the name is split into words.
func hasStem(lower []byte) bool {
	for i, c := range lower {
		var stem string
		switch c {
		case 'p':
			stem = "pass"
			if i+1 < len(lower) && lower[i+1] == 'w' {
				stem = "pwd"
			}
		case 's':
			stem = "secret"
		case 't':
			stem = "token"
		case 'k':
			stem = "key"
		default:
			continue
		}
		if bytes.HasPrefix(lower[i:], []byte(stem)) {
			return true
		}
	}
	return false
}

// assignments finds the values assigned to secret names in text (lower:
// text in lower case).
func assignments(text string, lower []byte) []redact.Finding {
	var out []redact.Finding
	for i := 0; i < len(text); i++ {
		if c := text[i]; c != '=' && c != ':' {
			continue
		}
		after, op := separator(text, i)
		if op == 0 {
			i = after - 1
			continue
		}
		if a, b, ok := assigned(text, lower, i, after, op); ok {
			out = append(out, redact.Finding{Start: a, End: b, Rule: assignmentRule})
		}
		i = after - 1
	}
	return out
}

// assigned is the value of the assignment whose operator op is at
// text[i:after], when a secret's name is before it.
func assigned(text string, lower []byte, i, after int, op byte) (int, int, bool) {
	start, na, nb, ok := nameBefore(text, i)
	if !ok || !hasStem(lower[na:nb]) || !secretName(text[na:nb]) {
		return 0, 0, false
	}
	shape := inline
	switch {
	case startsLine(text, start):
		shape = wholeLine
	case op == ':' && labels(text, start):
		shape = label
	}
	if op == '~' {
		// DB_PASSWORD==x or DB_PASSWORD=~x: an env line whose value
		// starts with = or ~, not a comparison.
		if shape != wholeLine || nb != i {
			return 0, 0, false
		}
		op, after = '=', i+1
	}
	var before byte
	if start > 0 && start == na {
		before = text[start-1] // a quoted name is in no string of its own
	}
	a, b, ok := valueAfter(text, after, op, shape, before)
	if !ok || placeholder(text[a:b]) || workrailToken.MatchString(text[a:b]) {
		return 0, 0, false
	}
	return a, b, true
}

// separator reads the operator at text[i] and returns where what follows
// it starts and what it is: '=' (=, := or =>), ':', '~' (== or =~, a
// comparison unless an env line's value starts with = or ~), or 0 for
// what only looks like one (!=, <=, >=, ::, ://).
func separator(text string, i int) (int, byte) {
	var next, prev byte
	if i+1 < len(text) {
		next = text[i+1]
	}
	if i > 0 {
		prev = text[i-1]
	}
	switch c := text[i]; {
	case c == ':' && next == '=', c == '=' && next == '>':
		return i + 2, '='
	case c == '=' && strings.IndexByte("=!<>", prev) >= 0,
		c == ':' && (next == ':' || next == '/' || prev == ':'):
		return i + 1, 0
	case c == '=' && (next == '=' || next == '~'):
		return i + 2, '~'
	}
	return i + 1, text[i]
}

// nameBefore reads the name written before the operator at text[i]:
// letters, digits, _ . - (x-api-key, spring.datasource.password), maybe
// quoted, maybe followed by spaces: text[a:b]. start is where it begins,
// its opening quote included.
func nameBefore(text string, i int) (start, a, b int, ok bool) {
	j := i
	for j > 0 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	var quote byte
	if j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		quote = text[j-1]
		j--
		if j > 0 && text[j-1] == '\\' {
			j-- // {\"password\": …}, JSON inside a string
		}
	}
	end := j
	for j > 0 && nameByte(text[j-1]) {
		j--
	}
	if j == end {
		return 0, 0, 0, false
	}
	a = j
	if quote != 0 {
		if j == 0 || text[j-1] != quote {
			return 0, 0, 0, false
		}
		j--
		if j > 0 && text[j-1] == '\\' {
			j--
		}
	}
	return j, a, end, true
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// startsLine reports whether the name at start begins its line: nothing
// before it but indentation, list and comment marks (- * + # > // 1.)
// and a command that sets a variable (export, set, setx, env, arg).
func startsLine(text string, start int) bool {
	line := strings.LastIndexByte(text[:start], '\n') + 1
	rest := strings.TrimLeft(text[line:start], " \t-*+#>/.0123456789")
	if rest == "" {
		return true
	}
	word, tail, ok := strings.Cut(rest, " ")
	if !ok || strings.TrimLeft(tail, " \t") != "" {
		return false
	}
	switch strings.ToLower(word) {
	case "export", "set", "setx", "env", "arg":
		return true
	}
	return false
}

// labels reports whether the name at start ends a label that begins its
// line: a word or two before it ("Admin password:", "**Root token:**").
func labels(text string, start int) bool {
	line := strings.LastIndexByte(text[:start], '\n') + 1
	ws := strings.Fields(strings.TrimLeft(text[line:start], " \t-*+#>_"))
	return len(ws) > 0 && len(ws) <= 2 && !slices.ContainsFunc(ws, func(w string) bool {
		return strings.IndexFunc(w, func(c rune) bool { return !unicode.IsLetter(c) }) >= 0
	})
}

// shape is where an unquoted value ends, by where its name is.
type shape int

const (
	inline    shape = iota // to the next space, quote or , ; ) ] }
	wholeLine              // the name starts its line: to the line's end
	label                  // a label of a few words: one word to the line's end
)

// valueAfter is where the value that starts at p (past spaces) lies, by
// the rules above; op is the operator ('=' or ':'), before the character
// just before an unquoted name (a string's opening quote, ? or &).
func valueAfter(text string, p int, op byte, sh shape, before byte) (int, int, bool) {
	for op == ':' && sh != inline && p < len(text) && (text[p] == '*' || text[p] == '_') {
		p++ // the end of a bold label: **Password:** …
	}
	for p < len(text) && (text[p] == ' ' || text[p] == '\t') {
		p++
	}
	eol := strings.IndexByte(text[p:], '\n')
	if eol < 0 {
		eol = len(text)
	} else {
		eol += p
	}
	if p >= eol {
		return 0, 0, false
	}
	switch q := text[p]; {
	case q == '"' || q == '\'' || q == '`':
		return trimmed(text, p+1, closing(text, p+1, eol, q))
	case q == '\\' && p+1 < eol && (text[p+1] == '"' || text[p+1] == '\''):
		// a quoted value inside an escaped string: {\"password\": \"…\"}
		end := strings.Index(text[p+2:eol], text[p:p+2])
		if end < 0 {
			return trimmed(text, p+2, eol)
		}
		return trimmed(text, p+2, p+2+end)
	case before == '?' || before == '&':
		return trimmed(text, p, stop(text, p, eol, "&# \t\r"))
	case sh == wholeLine:
		return trimmed(text, p, eol)
	case sh == label:
		a, b, ok := trimmed(text, p, eol)
		return a, b, ok && !strings.ContainsAny(text[a:b], " \t")
	case op == ':' && (before == '"' || before == '\''):
		return trimmed(text, p, stop(text, p, eol, string(before)))
	case op == '=':
		return trimmed(text, p, stop(text, p, eol, " \t\r\"'`,;)]}"))
	}
	return 0, 0, false
}

// closing is where the string opened before from closes with quote q
// (a backslash escapes the next character in a double-quoted one), or
// eol when it does not close on its line.
func closing(text string, from, eol int, q byte) int {
	for k := from; k < eol; k++ {
		switch text[k] {
		case '\\':
			if q == '"' {
				k++
			}
		case q:
			return k
		}
	}
	return eol
}

// stop is the first place from p on (before eol) holding one of set.
func stop(text string, p, eol int, set string) int {
	if k := strings.IndexAny(text[p:eol], set); k >= 0 {
		return p + k
	}
	return eol
}

// trimmed is text[a:b] without surrounding spaces; false when empty.
func trimmed(text string, a, b int) (int, int, bool) {
	for a < b && strings.IndexByte(" \t\r", text[a]) >= 0 {
		a++
	}
	for b > a && strings.IndexByte(" \t\r", text[b-1]) >= 0 {
		b--
	}
	return a, b, a < b
}
