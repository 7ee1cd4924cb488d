package lanes_test

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/workrail/workrail/web"
)

// TestGraphContrast: every colour a drawing marks a node or an edge with
// is at least 3:1 (WCAG's bar for graphics) against the panel the graph
// sits on, in the Console's light scheme and in its dark one. The drawings
// are the golden ones, which the golden tests hold to the code.
func TestGraphContrast(t *testing.T) {
	css, err := fs.ReadFile(web.Static, "static/console.css")
	if err != nil {
		t.Fatal(err)
	}
	panels := regexp.MustCompile(`--panel:\s*#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b`).FindAllStringSubmatch(string(css), -1)
	if len(panels) != 2 {
		t.Fatalf("console.css has %d --panel colours; want the light and the dark one", len(panels))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	inks := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?:fill|stroke)="(#[0-9a-fA-F]{6})"`).FindAllStringSubmatch(string(b), -1) {
			inks[strings.ToLower(m[1])] = true
		}
	}
	delete(inks, "#ffffff") // the inside of hollow marks, drawn around in an ink
	if len(inks) < 4 {
		t.Fatalf("the drawings use %d inks: %v", len(inks), inks)
	}
	for ink := range inks {
		for _, p := range panels {
			panel := p[1]
			if len(panel) == 3 { // #rgb is #rrggbb
				panel = string([]byte{panel[0], panel[0], panel[1], panel[1], panel[2], panel[2]})
			}
			if r := contrast(ink, "#"+panel); r < 3 {
				t.Errorf("%s on the panel #%s is %.2f:1, under 3:1", ink, panel, r)
			}
		}
	}
}

func contrast(a, b string) float64 {
	la, lb := relLuminance(a), relLuminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// relLuminance is WCAG 2's relative luminance of #rrggbb.
func relLuminance(hex string) float64 {
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		v, _ := strconv.ParseUint(hex[1+2*i:3+2*i], 16, 8)
		c := float64(v) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		l += w * c
	}
	return l
}
