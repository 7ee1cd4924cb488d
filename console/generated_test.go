package console

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"testing"

	"github.com/a-h/templ"
	"github.com/a-h/templ/generator"
	"github.com/a-h/templ/parser/v2"
)

// Each template's Go is what `go tool templ generate` writes for it now:
// the same parser, generator and version as the tool go.mod pins, run
// here so that checking costs no build of the tool (its LSP, proxy and
// watcher).
func TestTemplOutputIsCurrent(t *testing.T) {
	names, err := filepath.Glob("*.templ")
	if err != nil || len(names) == 0 {
		t.Fatalf("no templates found: %v", err)
	}
	for _, name := range names {
		tmpl, err := parser.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := generator.Generate(tmpl, &b, generator.WithVersion(templ.Version()), generator.WithFileName("console/"+name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := format.Source(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		goName := name[:len(name)-len(".templ")] + "_templ.go"
		if got, err := os.ReadFile(goName); err != nil || !bytes.Equal(got, want) {
			t.Errorf("console/%s is not what console/%s generates: run `go tool templ generate` and commit it", goName, name)
		}
	}
}
