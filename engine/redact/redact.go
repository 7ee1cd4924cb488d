// Package redact replaces secrets in agent-supplied text with markers
// before anything is digested or stored, and records where it did so.
// Finding secrets is a port (Scanner): the rule set and its regular
// expressions live in an adapter outside the engine. Redacting is pure
// and deterministic: the same text and scanner give the same bytes.
package redact

import (
	"fmt"
	"slices"
	"strings"

	"github.com/workrail/workrail/engine/event"
)

// Finding is one secret in a text: the bytes [Start, End) and the id of
// the rule that matched them.
type Finding struct {
	Start, End int
	Rule       string
}

// Scanner finds secrets in a text. It must be deterministic and safe for
// concurrent use; findings may come in any order and may overlap.
type Scanner interface {
	// Scan finds the secrets in a text.
	Scan(text string) []Finding
	// Named finds the secrets in value, the value of a field called name
	// (an object member, or the value of a name/value pair): a name can
	// say that its value is a secret whatever the value looks like.
	// Findings are in value's bytes.
	Named(name, value string) []Finding
}

// None is the scanner that finds nothing.
type None struct{}

// Scan finds nothing.
func (None) Scan(string) []Finding { return nil }

// Named finds nothing.
func (None) Named(string, string) []Finding { return nil }

// Marker is what a secret matched by rule is replaced with.
func Marker(rule string) string { return "[redacted: " + rule + "]" }

// Text replaces every secret the scanner finds in text by its marker and
// returns the rules that matched, sorted and without repeats. Overlapping
// findings are merged into one span, named by the rule of the one that
// starts first (the rule listed first on a tie).
func Text(s Scanner, text string) (string, []string) {
	return replace(text, s.Scan(text))
}

// Named is Text for the value of a field called name (Scanner.Named).
func Named(s Scanner, name, value string) (string, []string) {
	return replace(value, s.Named(name, value))
}

// replace replaces each finding in text by its marker.
func replace(text string, fs []Finding) (string, []string) {
	if len(fs) == 0 {
		return text, nil
	}
	fs = merge(fs)
	var b strings.Builder
	var rules []string
	at := 0
	for _, f := range fs {
		b.WriteString(text[at:f.Start])
		b.WriteString(Marker(f.Rule))
		at = f.End
		if !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	b.WriteString(text[at:])
	slices.Sort(rules)
	return b.String(), rules
}

// merge orders findings by start and joins overlapping ones.
func merge(fs []Finding) []Finding {
	fs = slices.Clone(fs)
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	out := fs[:1]
	for _, f := range fs[1:] {
		last := &out[len(out)-1]
		if f.Start < last.End {
			last.End = max(last.End, f.End)
			continue
		}
		out = append(out, f)
	}
	return out
}

// Field is one field in which secrets were replaced: its JSON pointer in
// the call's arguments and the rules that matched there.
type Field = event.RedactedField

// Report redacts the fields of one call and collects where it did so, in
// the order the fields were visited.
type Report struct {
	scanner Scanner
	fields  []Field
}

// New starts a report that redacts with s (None when s is nil).
func New(s Scanner) *Report {
	if s == nil {
		s = None{}
	}
	return &Report{scanner: s}
}

// Fields lists where secrets were replaced.
func (r *Report) Fields() []Field { return r.fields }

// String redacts one text field at pointer ptr.
func (r *Report) String(ptr, text string) string {
	out, rules := Text(r.scanner, text)
	r.add(ptr, rules)
	return out
}

// named redacts the value of a field called name at pointer ptr.
func (r *Report) named(ptr, name, value string) string {
	out, rules := Named(r.scanner, name, value)
	r.add(ptr, rules)
	return out
}

// add records that rules matched at ptr, if any did.
func (r *Report) add(ptr string, rules []string) {
	if len(rules) > 0 {
		r.fields = append(r.fields, Field{Pointer: ptr, Rules: rules})
	}
}

// Notice is the SECRET_REDACTED notice for fields, if there are any.
func Notice(fs []Field) []event.Notice {
	if len(fs) == 0 {
		return nil
	}
	return []event.Notice{{Code: event.NoticeSecretRedacted, Message: Message(fs), Secrets: fs}}
}

// Message says, for an agent, where secrets were replaced and by which
// rules, never what they were.
func Message(fs []Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = fmt.Sprintf("%s (%s)", f.Pointer, strings.Join(f.Rules, ", "))
	}
	return "secrets were replaced by [redacted: <rule>] markers before anything was stored, in " + strings.Join(parts, "; ") +
		". Keep secrets in the chat with the user: WorkRail needs only that the user provided one, never its value."
}
