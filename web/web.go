// Package web holds the Console's static assets, embedded into the binary:
// htmx (vendored, version in the file name) and the stylesheet.
package web

import "embed"

// Static is served under /static/.
//
//go:embed static
var Static embed.FS

// HTMX is the path of the vendored htmx build under /static/.
const HTMX = "/static/htmx-2.0.11.min.js"

// CSS is the path of the Console stylesheet under /static/.
const CSS = "/static/console.css"
