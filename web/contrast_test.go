package web_test

import (
	"io/fs"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/workrail/workrail/web"
)

// palettes reads the colour variables of the stylesheet's light :root and
// of its prefers-color-scheme: dark override.
func palettes(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := fs.ReadFile(web.Static, "static/console.css")
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	dark := strings.Index(css, "@media (prefers-color-scheme: dark)")
	if dark < 0 {
		t.Fatal("console.css has no dark scheme")
	}
	vars := func(s string) map[string]string {
		block := s[strings.Index(s, ":root {"):]
		block = block[:strings.Index(block, "}")]
		out := map[string]string{}
		for _, m := range regexp.MustCompile(`--([a-z-]+):\s*#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b`).FindAllStringSubmatch(block, -1) {
			hex := m[2]
			if len(hex) == 3 { // #rgb is #rrggbb
				hex = string([]byte{hex[0], hex[0], hex[1], hex[1], hex[2], hex[2]})
			}
			out[m[1]] = "#" + hex
		}
		return out
	}
	return map[string]map[string]string{"light": vars(css[:dark]), "dark": vars(css[dark:])}
}

// TestTextContrast: every text colour the Console uses is at least 4.5:1
// (WCAG AA for normal text) against every background it appears on, in
// light and in dark.
func TestTextContrast(t *testing.T) {
	pairs := []struct{ text, on string }{
		{"fg", "bg"}, {"fg", "panel"}, {"fg", "code-bg"},
		{"muted", "bg"}, {"muted", "panel"},
		{"accent", "bg"}, {"accent", "panel"},
		{"bad", "bg"}, {"bad", "panel"},
		{"ok", "bg"}, {"ok", "panel"},
		{"panel", "accent"}, // the N-new pill and the current filter
	}
	for scheme, p := range palettes(t) {
		for _, c := range pairs {
			fg, bg := p[c.text], p[c.on]
			if fg == "" || bg == "" {
				t.Fatalf("%s: --%s or --%s is not a #rgb or #rrggbb colour", scheme, c.text, c.on)
			}
			if r := ratio(fg, bg); r < 4.5 {
				t.Errorf("%s: --%s %s on --%s %s is %.2f:1, under 4.5:1", scheme, c.text, fg, c.on, bg, r)
			}
		}
	}
}

func ratio(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// luminance is WCAG 2's relative luminance of #rrggbb.
func luminance(hex string) float64 {
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
