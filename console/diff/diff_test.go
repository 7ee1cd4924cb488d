package diff_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/workrail/workrail/console/diff"
)

// text is lines, each ended by a newline.
func text(lines ...string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// numbered is "1\n2\n…n\n", with the lines named in edit replaced.
func numbered(n int, edit map[int]string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := edit[i]; ok {
			sb.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&sb, "%d\n", i)
	}
	return sb.String()
}

// lineCases are diffs small enough to write out by hand; each want is also
// what GNU diff -U<context> prints (TestLinesGNU checks).
var lineCases = []struct {
	name    string
	a, b    string
	context int
	want    string // Unified("a", "b", hunks)
}{
	{"identical", text("x", "y"), text("x", "y"), 3, ""},
	{"both empty", "", "", 3, ""},
	{"empty vs text", "", text("x", "y", "z"), 3,
		text("--- a", "+++ b", "@@ -0,0 +1,3 @@", "+x", "+y", "+z")},
	{"text vs empty", text("x", "y", "z"), "", 3,
		text("--- a", "+++ b", "@@ -1,3 +0,0 @@", "-x", "-y", "-z")},
	{"one line vs empty", text("x"), "", 3,
		text("--- a", "+++ b", "@@ -1 +0,0 @@", "-x")},
	{"one changed in the middle", numbered(20, nil), numbered(20, map[int]string{10: "ten"}), 3,
		text("--- a", "+++ b", "@@ -7,7 +7,7 @@", " 7", " 8", " 9", "-10", "+ten", " 11", " 12", " 13")},
	{"context 0", numbered(20, nil), numbered(20, map[int]string{10: "ten"}), 0,
		text("--- a", "+++ b", "@@ -10 +10 @@", "-10", "+ten")},
	{"negative context is 0", numbered(20, nil), numbered(20, map[int]string{10: "ten"}), -2,
		text("--- a", "+++ b", "@@ -10 +10 @@", "-10", "+ten")},
	{"more context than lines: one hunk of everything", numbered(20, nil), numbered(20, map[int]string{3: "three", 18: "eighteen"}), math.MaxInt,
		text("--- a", "+++ b", "@@ -1,20 +1,20 @@", " 1", " 2", "-3", "+three", " 4", " 5", " 6", " 7", " 8", " 9", " 10",
			" 11", " 12", " 13", " 14", " 15", " 16", " 17", "-18", "+eighteen", " 19", " 20")},
	{"context 1", numbered(20, nil), numbered(20, map[int]string{10: "ten"}), 1,
		text("--- a", "+++ b", "@@ -9,3 +9,3 @@", " 9", "-10", "+ten", " 11")},
	{"first line: the hunk clamps at the start", numbered(20, nil), numbered(20, map[int]string{1: "one"}), 3,
		text("--- a", "+++ b", "@@ -1,4 +1,4 @@", "-1", "+one", " 2", " 3", " 4")},
	{"second line", numbered(20, nil), numbered(20, map[int]string{2: "two"}), 3,
		text("--- a", "+++ b", "@@ -1,5 +1,5 @@", " 1", "-2", "+two", " 3", " 4", " 5")},
	{"last line: the hunk clamps at the end", numbered(20, nil), numbered(20, map[int]string{20: "twenty"}), 3,
		text("--- a", "+++ b", "@@ -17,4 +17,4 @@", " 17", " 18", " 19", "-20", "+twenty")},
	{"insert at the top, context 0", text("x", "y"), text("w", "x", "y"), 0,
		text("--- a", "+++ b", "@@ -0,0 +1 @@", "+w")},
	{"insert after line 2, context 0", text("x", "y", "z"), text("x", "y", "new", "z"), 0,
		text("--- a", "+++ b", "@@ -2,0 +3 @@", "+new")},
	{"delete line 2, context 0", text("x", "y", "z"), text("x", "z"), 0,
		text("--- a", "+++ b", "@@ -2 +1,0 @@", "-y")},
	{"append at the end", text("x", "y"), text("x", "y", "z"), 3,
		text("--- a", "+++ b", "@@ -1,2 +1,3 @@", " x", " y", "+z")},
	{"changes 6 apart merge with context 3", numbered(30, nil), numbered(30, map[int]string{10: "ten", 17: "seventeen"}), 3,
		text("--- a", "+++ b", "@@ -7,14 +7,14 @@", " 7", " 8", " 9", "-10", "+ten",
			" 11", " 12", " 13", " 14", " 15", " 16", "-17", "+seventeen", " 18", " 19", " 20")},
	{"changes 7 apart make two hunks", numbered(30, nil), numbered(30, map[int]string{10: "ten", 18: "eighteen"}), 3,
		text("--- a", "+++ b",
			"@@ -7,7 +7,7 @@", " 7", " 8", " 9", "-10", "+ten", " 11", " 12", " 13",
			"@@ -15,7 +15,7 @@", " 15", " 16", " 17", "-18", "+eighteen", " 19", " 20", " 21")},
	{"adjacent changes are one run", numbered(10, nil), numbered(10, map[int]string{4: "four", 5: "five"}), 0,
		text("--- a", "+++ b", "@@ -4,2 +4,2 @@", "-4", "-5", "+four", "+five")},
	{"b drops the final newline", text("x", "y"), "x\ny", 3,
		text("--- a", "+++ b", "@@ -1,2 +1,2 @@", " x", "-y", "+y", `\ No newline at end of file`)},
	{"a lacks the final newline", "x\ny", text("x", "y"), 3,
		text("--- a", "+++ b", "@@ -1,2 +1,2 @@", " x", "-y", `\ No newline at end of file`, "+y")},
	{"neither has one, the last line is context", "x\ny\nz", "x\nY\nz", 3,
		text("--- a", "+++ b", "@@ -1,3 +1,3 @@", " x", "-y", "+Y", " z", `\ No newline at end of file`)},
	{"neither has one, the last lines differ", "x\ny", "x\nz", 3,
		text("--- a", "+++ b", "@@ -1,2 +1,2 @@", " x", "-y", `\ No newline at end of file`, "+z", `\ No newline at end of file`)},
	{"a lone newline is one empty line", "\n", "", 3,
		text("--- a", "+++ b", "@@ -1 +0,0 @@", "-")},
	{"a line without newline vs empty", "x", "", 3,
		text("--- a", "+++ b", "@@ -1 +0,0 @@", "-x", `\ No newline at end of file`)},
	{"carriage returns are text", "x\r\ny\r\n", "x\r\nz\r\n", 0,
		text("--- a", "+++ b", "@@ -2 +2 @@", "-y\r", "+z\r")},
	{"an insertion slides down past equal lines", text("{", "}", "{", "}"), text("{", "}", "{", "}", "{", "}"), 0,
		text("--- a", "+++ b", "@@ -4,0 +5,2 @@", "+{", "+}")},
	{"runs slide as GNU diff slides them", text("c", "a"), text("a", "a", "b", "c"), 0,
		text("--- a", "+++ b", "@@ -1 +0,0 @@", "-c", "@@ -2,0 +2,3 @@", "+a", "+b", "+c")},
	{"a deletion slides opposite an insertion", text("b", "a", "c"), text("c", "c", "b"), 0,
		text("--- a", "+++ b", "@@ -1,2 +0,0 @@", "-b", "-a", "@@ -3,0 +2,2 @@", "+c", "+b")},
}

func TestLines(t *testing.T) {
	for _, tt := range lineCases {
		t.Run(tt.name, func(t *testing.T) {
			hunks := diff.Lines(tt.a, tt.b, tt.context)
			if got := diff.Unified("a", "b", hunks); got != tt.want {
				t.Errorf("Unified:\n%s\nwant:\n%s", got, tt.want)
			}
			got, err := apply(tt.a, hunks)
			if err != nil || got != tt.b {
				t.Errorf("apply(a, hunks) = %q, %v; want b = %q", got, err, tt.b)
			}
		})
	}
}

func TestLinesHunks(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want []diff.Hunk
	}{
		{"identical", text("x"), text("x"), nil},
		{"empty vs text", "", text("x", "y"), []diff.Hunk{{
			FromLine: 0, FromCount: 0, ToLine: 1, ToCount: 2,
			Lines: []diff.Line{{Op: diff.OpAdd, Text: "x"}, {Op: diff.OpAdd, Text: "y"}},
		}}},
		{"text vs empty", text("x"), "", []diff.Hunk{{
			FromLine: 1, FromCount: 1, ToLine: 0, ToCount: 0,
			Lines: []diff.Line{{Op: diff.OpDel, Text: "x"}},
		}}},
		{"no final newline", text("x", "y"), "x\nz", []diff.Hunk{{
			FromLine: 1, FromCount: 2, ToLine: 1, ToCount: 2,
			Lines: []diff.Line{
				{Op: diff.OpSame, Text: "x"},
				{Op: diff.OpDel, Text: "y"},
				{Op: diff.OpAdd, Text: "z", NoEOL: true},
			},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diff.Lines(tt.a, tt.b, 3); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Lines = %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestOps(t *testing.T) {
	ops := diff.Ops()
	want := []diff.Op{diff.OpSame, diff.OpDel, diff.OpAdd}
	if !reflect.DeepEqual(ops, want) {
		t.Fatalf("Ops() = %q, want %q", ops, want)
	}
	for _, op := range ops {
		if len(op) != 1 {
			t.Errorf("op %q is not one column", op)
		}
	}
}

func TestUnifiedNoHunks(t *testing.T) {
	if got := diff.Unified("a", "b", nil); got != "" {
		t.Errorf("Unified with no hunks = %q, want nothing", got)
	}
}

// TestUnifiedNames checks the names are written as given, with no
// timestamps.
func TestUnifiedNames(t *testing.T) {
	got := diff.Unified("pinned wr.hello@1.0.0", "current wr.hello", diff.Lines("x\n", "y\n", 3))
	want := text("--- pinned wr.hello@1.0.0", "+++ current wr.hello", "@@ -1 +1 @@", "-x", "+y")
	if got != want {
		t.Errorf("Unified = %q, want %q", got, want)
	}
}
