package markdown_test

import (
	"context"
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/workrail/workrail/console/markdown"
)

// mustRender renders src through markdown.Render.
func mustRender(tb testing.TB, src string) string {
	tb.Helper()
	var b strings.Builder
	if err := markdown.Render(src).Render(context.Background(), &b); err != nil {
		tb.Fatalf("Render(%.40q): %v", src, err)
	}
	return b.String()
}

var (
	// tagRE is one tag as the sanitizer writes it: lower-case names,
	// double-quoted values with <, > and " escaped.
	tagRE  = regexp.MustCompile(`^<(/?)([a-z][a-z0-9]*)((?: [a-z][a-z0-9-]*="[^"<>]*")*)>`)
	attrRE = regexp.MustCompile(` ([a-z][a-z0-9-]*)="([^"<>]*)"`)
	// forbiddenRE must not match any tag with its values emptied.
	forbiddenRE = regexp.MustCompile(`(?i)<script|on[a-z]+=|javascript:`)
	digitsRE    = regexp.MustCompile(`^[0-9]+$`)
)

// allowedAttrs is every element goldmark's stage may produce, with the
// attributes each may carry. Anything else on the page is a failure.
var allowedAttrs = map[string]map[string]bool{
	"a": {"href": true, "rel": true, "title": true}, "ol": {"start": true},
	"th": {"align": true}, "td": {"align": true},
	"p": {}, "h1": {}, "h2": {}, "h3": {}, "h4": {}, "h5": {}, "h6": {},
	"ul": {}, "li": {}, "blockquote": {}, "pre": {}, "code": {}, "em": {},
	"strong": {}, "del": {}, "hr": {}, "br": {}, "table": {}, "thead": {},
	"tbody": {}, "tr": {},
}

// inert reports why out could run script or break its container, or nil:
// it must be valid UTF-8, every < must open an allowed tag with allowed
// attributes, links must be absolute http, https or mailto with the fixed
// rel, and tags must balance.
func inert(out string) error {
	if !utf8.ValidString(out) {
		return fmt.Errorf("output is not valid UTF-8")
	}
	if strings.Contains(strings.ToLower(out), "<script") {
		return fmt.Errorf("output contains <script")
	}
	var open []string
	for rest := out; ; {
		i := strings.IndexByte(rest, '<')
		if i < 0 {
			break
		}
		rest = rest[i:]
		m := tagRE.FindStringSubmatch(rest)
		if m == nil {
			return fmt.Errorf("< does not open a well-formed tag: %.60q", rest)
		}
		rest = rest[len(m[0]):]
		closing, name := m[1] == "/", m[2]
		if err := checkTag(name, m[3]); err != nil {
			return fmt.Errorf("%s: %w", m[0], err)
		}
		switch {
		case name == "br" || name == "hr":
		case !closing:
			open = append(open, name)
		case len(open) == 0 || open[len(open)-1] != name:
			return fmt.Errorf("</%s> closes %v", name, open)
		default:
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("unclosed %v", open)
	}
	return nil
}

// checkTag checks one element's name and attributes.
func checkTag(name, attrs string) error {
	allowed, ok := allowedAttrs[name]
	if !ok {
		return fmt.Errorf("element %q is not allowed", name)
	}
	skeleton := "<" + name
	for _, a := range attrRE.FindAllStringSubmatch(attrs, -1) {
		key, val := a[1], html.UnescapeString(a[2])
		if !allowed[key] {
			return fmt.Errorf("attribute %q is not allowed on %q", key, name)
		}
		skeleton += " " + key + `=""`
		if err := checkValue(key, val); err != nil {
			return err
		}
	}
	if forbiddenRE.MatchString(skeleton) {
		return fmt.Errorf("forbidden pattern in %s", skeleton)
	}
	return nil
}

// checkValue checks the attributes whose values matter.
func checkValue(key, val string) error {
	switch key {
	case "href":
		// Browsers drop tabs and newlines anywhere in a URL and spaces
		// and controls around it; look at the scheme as they would.
		norm := strings.ToLower(strings.Map(func(r rune) rune {
			if r <= ' ' {
				return -1
			}
			return r
		}, val))
		for _, scheme := range []string{"http://", "https://", "mailto:"} {
			if strings.HasPrefix(norm, scheme) {
				return nil
			}
		}
		return fmt.Errorf("href %q is not http, https or mailto", val)
	case "rel":
		if val != "nofollow noopener noreferrer" {
			return fmt.Errorf("rel is %q", val)
		}
	case "start":
		if !digitsRE.MatchString(val) {
			return fmt.Errorf("start is %q", val)
		}
	case "align":
		if val != "left" && val != "center" && val != "right" {
			return fmt.Errorf("align is %q", val)
		}
	}
	return nil
}

// TestInertRejects proves the oracle is not vacuous.
func TestInertRejects(t *testing.T) {
	for _, out := range []string{
		"<script>alert(1)</script>",
		`<img src="x" onerror="alert(1)">`,
		`<p onclick="alert(1)">x</p>`,
		`<a href="javascript:alert(1)" rel="nofollow noopener noreferrer">x</a>`,
		`<a href="java&#9;script:alert(1)" rel="nofollow noopener noreferrer">x</a>`,
		`<a href="/relative" rel="nofollow noopener noreferrer">x</a>`,
		`<a href="https://x" rel="nofollow">x</a>`,
		`<a href="https://x" rel="nofollow noopener noreferrer" target="_blank">x</a>`,
		"<iframe></iframe>",
		"<p>unclosed",
		"</div>",
		"<p>a < b</p>",
		"\xff",
	} {
		if inert(out) == nil {
			t.Errorf("inert(%q) = nil, want an error", out)
		}
	}
}
