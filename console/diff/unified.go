package diff

import (
	"strconv"
	"strings"
)

// Unified is the text `diff -u` prints for hunks between files named
// fromName and toName (given as they should appear, without timestamps):
// the --- and +++ lines, then each hunk's @@ -a,b +c,d @@ header and its
// lines, a count of 1 written as the line number alone. A line without a
// newline is followed by `\ No newline at end of file`. No hunks, no text.
func Unified(fromName, toName string, hunks []Hunk) string {
	if len(hunks) == 0 {
		return ""
	}
	var sb strings.Builder
	sb.WriteString("--- " + fromName + "\n")
	sb.WriteString("+++ " + toName + "\n")
	for _, h := range hunks {
		sb.WriteString(h.Header())
		sb.WriteByte('\n')
		for _, l := range h.Lines {
			sb.WriteString(string(l.Op))
			sb.WriteString(l.Text)
			sb.WriteByte('\n')
			if l.NoEOL {
				sb.WriteString("\\ No newline at end of file\n")
			}
		}
	}
	return sb.String()
}

// Header is the hunk's @@ -a,b +c,d @@ line, without its newline.
func (h Hunk) Header() string {
	var sb strings.Builder
	sb.WriteString("@@ -")
	writeRange(&sb, h.FromLine, h.FromCount)
	sb.WriteString(" +")
	writeRange(&sb, h.ToLine, h.ToCount)
	sb.WriteString(" @@")
	return sb.String()
}

// writeRange writes a hunk range as diff -u does: "line,count", or just
// "line" when the count is 1.
func writeRange(sb *strings.Builder, line, count int) {
	sb.WriteString(strconv.Itoa(line))
	if count != 1 {
		sb.WriteByte(',')
		sb.WriteString(strconv.Itoa(count))
	}
}
