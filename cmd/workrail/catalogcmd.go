package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/workrail/workrail/engine/catalog"
	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/workflows"
)

// printCatalog writes the builtins catalog: every name WorkRail's
// registries define for authors, then the bundled routines, as text or
// JSON. Same binary, same bytes.
func printCatalog(stdout, stderr io.Writer, asJSON bool) int {
	entries, problems := catalog.LoadFS(workflows.FS, catalog.Source{Kind: catalog.Bundled})
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "workrail validate: a bundled workflow does not load: %s: %s\n", problems[0].File, problems[0].Problems[0])
		return 1
	}
	all := catalog.New(entries, nil).Builtins()
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{"builtins": all})
		return 0
	}
	var kind compile.BuiltinKind
	for _, b := range all {
		if b.Kind != kind {
			kind = b.Kind
			fmt.Fprintf(stdout, "# %s\n\n", kind)
		}
		fmt.Fprintf(stdout, "%s (%s, %s)\n  %s\n  Goes in %s.\n", b.Name, b.Origin.By, b.Origin.File, b.Description, b.Where)
		if len(b.Aliases) > 0 {
			fmt.Fprintf(stdout, "  Also accepted as: %s\n", strings.Join(b.Aliases, ", "))
		}
		if len(b.Schema) > 0 {
			var buf bytes.Buffer
			json.Compact(&buf, b.Schema)
			fmt.Fprintf(stdout, "  Takes: %s\n", buf.String())
		}
		fmt.Fprintf(stdout, "  %s\n\n", strings.ReplaceAll(b.Snippet, "\n", "\n  "))
	}
	return 0
}
