// Package workflows holds the bundled wr.* workflows, embedded into the
// binary. Their tests compile each one and walk it to completion.
package workflows

import "embed"

// FS holds every bundled workflow file (*.json at the top of this folder).
//
//go:embed *.json
var FS embed.FS
