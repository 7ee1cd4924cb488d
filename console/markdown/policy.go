package markdown

import (
	"regexp"

	"github.com/microcosm-cc/bluemonday"
)

// rel is what every link carries: no ranking credit, no window.opener, no
// Referer leaking the Console's URL.
const rel = "nofollow noopener noreferrer"

// newPolicy is bluemonday's UGC policy, tightened to absolute http, https
// and mailto URLs, with the rel goldmark's stage writes and the ordered
// list start number goldmark emits.
func newPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(false)
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(false)
	p.AllowAttrs("rel").Matching(regexp.MustCompile(`^` + rel + `$`)).OnElements("a")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	return p
}
