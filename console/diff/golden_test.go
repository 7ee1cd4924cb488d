package diff_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/console/diff"
	"github.com/workrail/workrail/engine/golden"
)

// goldens are the pairs testdata/NAME.a and NAME.b, with the context each
// is diffed with. NAME.U<context>.diff is what GNU diff 3.8 printed for
//
//	diff -U<context> --label a --label b NAME.a NAME.b
//
// and never what this package printed: -update runs GNU diff again.
// The inputs are the compiled wr.hello and wr.code_review workflows with
// edits of the kinds a workflow author makes.
var goldens = []struct {
	name    string
	context int
}{
	{"middle", 3},         // one line changed mid-document
	{"middle", 0},         // the same with no context
	{"start", 3},          // line 2: the hunk starts at line 1
	{"end", 3},            // the next-to-last line: the hunk stops at the end
	{"start_end", 3},      // both: two hunks
	{"merge", 3},          // two changes 6 equal lines apart: one hunk
	{"merge", 2},          // the same, 6 > 2*2: two hunks
	{"split", 3},          // 7 equal lines apart: two hunks
	{"split", 10},         // the same with more context: one hunk
	{"noeol_to", 3},       // b drops the final newline
	{"noeol_from", 3},     // a has none, b has one and another edit
	{"noeol_both", 3},     // neither has one; the last line is context
	{"insert_step", 3},    // a step object added to an array
	{"insert_step", 0},    // the same with no context
	{"delete_step", 3},    // the last step object removed
	{"reorder", 3},        // two step objects swapped
	{"empty_from", 3},     // "" against text
	{"empty_to", 3},       // text against ""
	{"pinned_current", 3}, // a pinned against a current compiled workflow
	{"pinned_current", 1}, // the same with one line of context
}

func goldenPaths(name string, context int) (a, b, want string) {
	base := filepath.Join("testdata", name)
	return base + ".a", base + ".b", fmt.Sprintf("%s.U%d.diff", base, context)
}

// TestGoldenGNU checks Unified against what GNU diff -u printed.
func TestGoldenGNU(t *testing.T) {
	for _, g := range goldens {
		t.Run(fmt.Sprintf("%s/U%d", g.name, g.context), func(t *testing.T) {
			pa, pb, pw := goldenPaths(g.name, g.context)
			if golden.Update() {
				out, err := gnuDiff(t, g.context, pa, pb)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(pw, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			a, b, want := read(t, pa), read(t, pb), read(t, pw)
			got := diff.Unified("a", "b", diff.Lines(a, b, g.context))
			if got != want {
				t.Errorf("Unified differs from GNU diff -U%d (%s):\n--- got\n%s--- want\n%s", g.context, pw, got, want)
			}
			hunks := diff.Lines(a, b, g.context)
			if out, err := apply(a, hunks); err != nil || out != b {
				t.Errorf("applying the hunks to a: %v, got b = %v", err, out == b)
			}
		})
	}
}

// TestGoldensAreGNU runs GNU diff, when the machine has it, and checks the
// goldens are still exactly what it prints.
func TestGoldensAreGNU(t *testing.T) {
	haveGNU(t)
	for _, g := range goldens {
		pa, pb, pw := goldenPaths(g.name, g.context)
		out, err := gnuDiff(t, g.context, pa, pb)
		if err != nil {
			t.Fatal(err)
		}
		if want := read(t, pw); string(out) != want {
			t.Errorf("%s is not what GNU diff prints now:\n%s", pw, out)
		}
	}
}

// TestLinesGNU checks the hand-written wants of lineCases against GNU
// diff, when the machine has it.
func TestLinesGNU(t *testing.T) {
	haveGNU(t)
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, c := range lineCases {
		if c.context < 0 {
			continue // diff -U takes no negative context
		}
		if err := os.WriteFile(pa, []byte(c.a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pb, []byte(c.b), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := gnuDiff(t, c.context, pa, pb)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.want {
			t.Errorf("%s: GNU diff prints\n%s\nthe case wants\n%s", c.name, out, c.want)
		}
	}
}

func haveGNU(t *testing.T) {
	t.Helper()
	if v, err := exec.Command("diff", "--version").Output(); err != nil || !bytes.Contains(v, []byte("GNU diffutils")) {
		t.Skip("GNU diff is not on PATH")
	}
}

// gnuDiff runs diff -U<context> with the labels the goldens use; exit
// status 1 means the files differ, which is the point.
func gnuDiff(t *testing.T, context int, a, b string) ([]byte, error) {
	t.Helper()
	cmd := exec.Command("diff", fmt.Sprintf("-U%d", context), "--label", "a", "--label", "b", a, b)
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		err = nil
	}
	return out, err
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
