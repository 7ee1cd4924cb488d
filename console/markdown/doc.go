// Package markdown is the only path from agent-written Markdown to HTML in
// the Console. Notes, outputs and anything else an agent writes reach a page
// through Render and nowhere else; a test fails if templ.Raw appears anywhere
// in the module outside this package.
//
// Agent text is untrusted (a prompt-injected agent writes whatever it was
// told to), so it passes two independent layers, either of which alone has
// let script through in other projects:
//
//   - goldmark renders CommonMark plus GFM tables, strikethrough and
//     autolinks with raw HTML off: tags in the text come out as escaped
//     text (a code block for an HTML block), so the only markup is
//     goldmark's own. Links and images are rendered
//     here, not by goldmark: only http, https and mailto become links, every
//     link carries rel="nofollow noopener noreferrer", and images become
//     links, because a remote image loads by itself and is a known channel
//     for exfiltrating data through an agent's output.
//   - bluemonday then sanitizes that markup with its UGC policy (http, https
//     and mailto URLs only, no relative URLs, no target), so a renderer bug
//     or a future option still cannot smuggle script, event handlers or
//     javascript: URLs onto the page.
//
// Input is bounded to MaxBytes and output is deterministic: the same text
// always renders to the same bytes.
//
// The package imports nothing from WorkRail.
package markdown
