package markdown_test

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const templPath = "github.com/a-h/templ"

// TestTemplRawOnlyHere fails if templ.Raw is used anywhere in the module
// outside this package, in hand-written or generated Go or in .templ
// files: agent text must reach a page only through markdown.Render.
func TestTemplRawOnlyHere(t *testing.T) {
	here, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot(here)
	if err != nil {
		t.Fatal(err)
	}
	uses, err := rawUses(root, here)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range uses {
		t.Errorf("%s: templ.Raw outside console/markdown; render agent text with markdown.Render", u)
	}
}

// TestRawUsesFinds proves the scan is not vacuous on a module built to
// break the rule every way it knows.
func TestRawUsesFinds(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                 "module example.com/m\n",
		"a/plain.go":             "package a\nimport \"github.com/a-h/templ\"\nvar _ = templ.Raw(\"x\")\n",
		"a/alias.go":             "package a\nimport t \"github.com/a-h/templ\"\nvar f = t.Raw[string]\n",
		"a/dot.go":               "package a\nimport . \"github.com/a-h/templ\"\nvar _ = Raw(\"x\")\n",
		"a/page_templ.go":        "package a\nimport \"github.com/a-h/templ\"\nfunc p() templ.Component { return templ.Raw(\"x\") }\n",
		"a/page.templ":           "package a\n\ntempl p(s string) {\n\t@templ.Raw(s)\n}\n",
		"a/alias.templ":          "package a\n\nimport tt \"github.com/a-h/templ\"\n\ntempl p(s string) {\n\t@tt.Raw(s)\n}\n",
		"a/dot.templ":            "package a\n\nimport . \"github.com/a-h/templ\"\n\ntempl p(s string) {\n\t@Raw(s)\n}\n",
		"a/clean.go":             "package a\nimport \"github.com/a-h/templ\"\nvar _ templ.Component\n// templ.Raw in a comment is fine\n",
		"a/other.go":             "package a\ntype x struct{}\nfunc (x) Raw() {}\nvar templ x\nvar _ = func() int { templ.Raw(); return 0 }\n",
		"console/markdown/ok.go": "package markdown\nimport \"github.com/a-h/templ\"\nvar _ = templ.Raw(\"x\")\n",
		"nested/go.mod":          "module example.com/nested\n",
		"nested/n.go":            "package n\nimport \"github.com/a-h/templ\"\nvar _ = templ.Raw(\"x\")\n",
		"a/testdata/t.go":        "package t\nimport \"github.com/a-h/templ\"\nvar _ = templ.Raw(\"x\")\n",
	}
	for name, body := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := moduleRoot(filepath.Join(root, "a"))
	if err != nil || got != root {
		t.Fatalf("moduleRoot = %q, %v; want %q", got, err, root)
	}
	uses, err := rawUses(root, filepath.Join(root, "console", "markdown"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a/alias.go:3", "a/alias.templ:6", "a/dot.go:2", "a/dot.templ:3", "a/page.templ:4",
		"a/page_templ.go:3", "a/plain.go:3",
	}
	if strings.Join(uses, " ") != strings.Join(want, " ") {
		t.Errorf("rawUses found %q, want %q", uses, want)
	}
}

// moduleRoot walks up from dir to the directory holding go.mod.
func moduleRoot(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// rawUses lists, as "path:line" relative to root and in walk order, every
// use of templ.Raw in the module's .go and .templ files outside exempt. It
// skips what the go command skips (testdata, vendor, node_modules, names
// starting with . or _) and nested modules.
func rawUses(root, exempt string) ([]string, error) {
	var uses []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return skipDir(root, exempt, path, d.Name())
		}
		var lines []int
		switch {
		case strings.HasSuffix(path, ".go"):
			lines, err = rawInGo(path)
		case strings.HasSuffix(path, ".templ"):
			lines, err = rawInTempl(path)
		}
		rel, _ := filepath.Rel(root, path)
		for _, l := range lines {
			uses = append(uses, fmt.Sprintf("%s:%d", filepath.ToSlash(rel), l))
		}
		return err
	})
	return uses, err
}

// skipDir decides whether the walk enters a directory.
func skipDir(root, exempt, path, name string) error {
	if path == root {
		return nil
	}
	if path == exempt || name == "testdata" || name == "vendor" || name == "node_modules" ||
		strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return filepath.SkipDir
	}
	if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
		return filepath.SkipDir
	}
	return nil
}

// rawInGo returns the lines of a Go file that use templ.Raw: a selector
// Raw on the name templ is imported as, or a dot import of templ, which
// would hide it.
func rawInGo(path string) ([]int, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	name := ""
	var lines []int
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p != templPath {
			continue
		}
		name = "templ"
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			lines = append(lines, fset.Position(imp.Pos()).Line)
		}
	}
	if name == "" || name == "." || name == "_" {
		return lines, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Raw" {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
				lines = append(lines, fset.Position(sel.Pos()).Line)
			}
		}
		return true
	})
	return lines, nil
}

var templImportRE = regexp.MustCompile(`(?m)^\s*(?:import\s+)?([A-Za-z_][A-Za-z0-9_]*|\.)\s+"` + regexp.QuoteMeta(templPath) + `"`)

// rawInTempl returns the lines of a .templ file that mention templ.Raw,
// under its default name or an import alias. The generated _templ.go is
// checked precisely; this catches files not yet generated.
func rawInTempl(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	names := []string{"templ"}
	var lines []int
	for _, m := range templImportRE.FindAllSubmatchIndex(b, -1) {
		name := string(b[m[2]:m[3]])
		if name == "." {
			lines = append(lines, bytes.Count(b[:m[2]], []byte("\n"))+1)
			continue
		}
		names = append(names, name)
	}
	re := regexp.MustCompile(`(?:^|[^\w.])(?:` + strings.Join(names, "|") + `)\s*\.\s*Raw\b`)
	for i, line := range strings.Split(string(b), "\n") {
		if re.MatchString(line) {
			lines = append(lines, i+1)
		}
	}
	return lines, nil
}
