package sources_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/server/sources"
	"github.com/workrail/workrail/workflows"
)

// BenchmarkFirstCatalogTSLibrary: the first catalog of a registry over
// the TypeScript WorkRail's workflows folder as laid out (routines in a
// subfolder), what a daemon's first list_workflows assembles. It needs
// WORKRAIL_TS_DIR, a checkout of the TypeScript WorkRail.
func BenchmarkFirstCatalogTSLibrary(b *testing.B) {
	dir := os.Getenv("WORKRAIL_TS_DIR")
	if dir == "" {
		b.Skip("WORKRAIL_TS_DIR is not set: point it at a checkout of the TypeScript WorkRail to load its library")
	}
	lib := filepath.Join(dir, "workflows")
	for b.Loop() {
		reg, err := sources.New(workflows.FS, []catalog.Source{{Kind: catalog.Config, Path: lib}})
		if err != nil {
			b.Fatal(err)
		}
		c := reg.Catalog("")
		if n := len(c.Problems); n > 0 {
			b.Fatalf("%d files did not load: %v", n, c.Problems[0])
		}
	}
}
