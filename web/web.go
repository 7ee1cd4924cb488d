// Package web holds the Console's static assets, embedded into the binary:
// htmx and its idiomorph extension (vendored, version in the file name,
// checksums in SHA256SUMS), the Console's own script and its stylesheet.
package web

import "embed"

// Static is served under /static/.
//
//go:embed static
var Static embed.FS

// Paths of the assets under /static/, in the order pages load them.
const (
	HTMX      = "/static/htmx-2.0.11.min.js"
	Idiomorph = "/static/idiomorph-ext-0.8.0.min.js"
	Script    = "/static/console.js"
	CSS       = "/static/console.css"
)
