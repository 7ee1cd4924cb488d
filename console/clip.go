package console

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// What a page shows of one text at most. A tool call cannot record more
// (its arguments are at most 256 KiB, notes 32 KiB, which the Markdown
// renderer bounds itself), but an imported bundle can: past the bound a
// page shows the start and says how much it left out.
const (
	maxShownSummary = 4 << 10  // a gap's summary: one line
	maxShownValue   = 32 << 10 // an artifact's value, or its JSON
)

// clip is s cut to at most max bytes at a character boundary, saying what
// it left out; s itself when it fits.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	end := max
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + " … (" + sizeText(len(s)-end) + " more not shown; the session's bundle holds all of it)"
}

// sizeText is a byte count as a reader says it: "512 bytes", "64 KiB",
// "2.5 MiB".
func sizeText(n int) string {
	switch {
	case n < 1<<10:
		return strconv.Itoa(n) + " bytes"
	case n < 1<<20:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
