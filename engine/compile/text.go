package compile

import "strings"

// Text is text kept as the parts it is written from, so that its length
// is known before it is written: a prompt is measured against its limit
// before it is built. The parts are shared, never copied, until String.
type Text []string

// Len is the length of the text the parts make.
func (t Text) Len() int {
	n := 0
	for _, s := range t {
		n += len(s)
	}
	return n
}

// String writes the text.
func (t Text) String() string {
	var b strings.Builder
	b.Grow(t.Len())
	for _, s := range t {
		b.WriteString(s)
	}
	return b.String()
}

// TrimLeft drops what the text starts with that cut says to cut.
func (t Text) TrimLeft(cut func(rune) bool) Text {
	for len(t) > 0 {
		switch first := strings.TrimLeftFunc(t[0], cut); {
		case first == "":
			t = t[1:]
		case first == t[0]:
			return t
		default:
			return append(Text{first}, t[1:]...)
		}
	}
	return t
}

// TrimRight drops what the text ends with that cut says to cut.
func (t Text) TrimRight(cut func(rune) bool) Text {
	for len(t) > 0 {
		switch last := strings.TrimRightFunc(t[len(t)-1], cut); {
		case last == "":
			t = t[:len(t)-1]
		case last == t[len(t)-1]:
			return t
		default:
			return append(t[:len(t)-1:len(t)-1], last)
		}
	}
	return t
}

// TrimSuffix drops suffix from the end of the text's last part that is
// not empty, as strings.TrimSuffix would from the whole text when that
// part holds all of suffix.
func (t Text) TrimSuffix(suffix string) Text {
	for len(t) > 0 && t[len(t)-1] == "" {
		t = t[:len(t)-1]
	}
	if len(t) > 0 && strings.HasSuffix(t[len(t)-1], suffix) {
		return append(t[:len(t)-1:len(t)-1], strings.TrimSuffix(t[len(t)-1], suffix))
	}
	return t
}
