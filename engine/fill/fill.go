// Package fill owns the one form of an unfilled place in a call WorkRail
// asks an agent to make: the marker "<<fill: what belongs here>>". Every
// nextCall and every blocker's fix carries a marker wherever the agent, or
// the user through the agent, must write or decide something (notes, a
// user's answer, a confirmation, a rating, a loop decision), never a
// plausible value; Slots list each marker with what belongs there and the
// options when there is a closed set. An output that still holds a marker,
// or the exact text of one of WorkRail's templates, is never taken as an
// answer: Strip finds and removes it before anything is judged or stored.
package fill

import (
	"strings"
)

// The marker's two ends. A marker is Open + what it asks + Close.
const (
	Open  = "<<fill: "
	Close = ">>"
)

// tag is what finds a marker, however the space after its colon was
// kept: any text holding it is unfilled.
const tag = "<<fill"

// Marker is the marker asking for what asks says.
func Marker(asks string) string { return Open + asks + Close }

// Slot is one place a template asks the agent to fill: a JSON pointer
// (into the call's arguments, or into one artifact), what belongs there,
// whether the step needs it, and the closed set of values it takes, if
// any.
type Slot struct {
	Pointer  string   `json:"pointer"`
	Asks     string   `json:"asks"`
	Required bool     `json:"required"`
	Options  []string `json:"options,omitempty"`
}

// Under is the slots with their pointers moved under prefix ("/output/
// artifacts/2" + "/response").
func Under(prefix string, slots []Slot) []Slot {
	out := make([]Slot, len(slots))
	for i, s := range slots {
		s.Pointer = prefix + s.Pointer
		out[i] = s
	}
	return out
}

// earlier are the placeholders earlier releases put where an agent had
// to write: an agent holding an answer from one of them may still send
// them, and they are no more an answer than a marker is.
var earlier = []string{
	"Replace with 1-10 lines: what you did in this step and what you found.",
	"Replace with 1-10 lines: what you did and found since the last response.",
	"<what the user answered, in their words>",
	"<that the user provided it; never the secret itself>",
	"<one line: why these ratings>",
	"<what you tried and what happened>",
	"<their answer>",
}

// IsTemplate reports whether s is template text rather than something an
// agent wrote: it holds a marker, or it is exactly (spaces aside) one of
// WorkRail's placeholders, or one of the asks texts given (the markers'
// own words, sent without their ends).
func IsTemplate(s string, asks ...string) bool {
	if strings.Contains(s, tag) {
		return true
	}
	t := strings.TrimSpace(s)
	if t == "" {
		return false
	}
	for _, e := range earlier {
		if t == e {
			return true
		}
	}
	for _, a := range asks {
		if t == a {
			return true
		}
	}
	return false
}
