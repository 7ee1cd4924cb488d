package markdown

import (
	"net/url"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// linkRenderer replaces goldmark's rendering of links, autolinks and
// images. A destination that is not an absolute http, https or mailto URL
// renders as its text alone; an allowed one becomes <a> with rel; an image
// becomes a link to the image labelled with its alt text, so nothing is
// fetched when the page loads. A link inside a link renders as text.
type linkRenderer struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (linkRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindImage, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
}

// renderLink renders a Link or an Image; their children are the label.
func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if stop(w) {
		return ast.WalkStop, nil
	}
	var dest, title []byte
	switch n := node.(type) {
	case *ast.Link:
		dest, title = n.Destination, n.Title
	case *ast.Image:
		dest, title = n.Destination, n.Title
	}
	href := util.URLEscape(dest, true)
	if insideLink(node) || !allowed(href) {
		return ast.WalkContinue, nil
	}
	if !entering {
		_, _ = w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	openLink(w, href, title)
	if !node.HasChildren() {
		_, _ = w.Write(util.EscapeHTML(href))
	}
	return ast.WalkContinue, nil
}

// renderAutoLink renders <https://…>, a bare www. or https:// URL, or an
// e-mail address.
func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if stop(w) {
		return ast.WalkStop, nil
	}
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	href := util.URLEscape(n.URL(source), false)
	if n.AutoLinkType == ast.AutoLinkEmail {
		href = append([]byte("mailto:"), href...)
	}
	label := util.EscapeHTML(n.Label(source))
	if insideLink(node) || !allowed(href) {
		_, _ = w.Write(label)
		return ast.WalkContinue, nil
	}
	openLink(w, href, nil)
	_, _ = w.Write(label)
	_, _ = w.WriteString("</a>")
	return ast.WalkContinue, nil
}

// openLink writes the opening <a> tag for an allowed href.
func openLink(w util.BufWriter, href, title []byte) {
	_, _ = w.WriteString(`<a href="`)
	_, _ = w.Write(util.EscapeHTML(href))
	_, _ = w.WriteString(`" rel="` + rel + `"`)
	if title != nil {
		_, _ = w.WriteString(` title="`)
		html.DefaultWriter.Write(w, title)
		_ = w.WriteByte('"')
	}
	_ = w.WriteByte('>')
}

// allowed reports whether href is an absolute http or https URL with a
// host, or a mailto URL with an address. The sanitizer checks again.
func allowed(href []byte) bool {
	u, err := url.Parse(string(href))
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "http", "https":
		return u.Host != ""
	case "mailto":
		return u.Opaque != ""
	}
	return false
}

// insideLink reports whether node sits inside a link or an image, looking
// no further than the enclosing block.
func insideLink(node ast.Node) bool {
	for p := node.Parent(); p != nil && p.Type() == ast.TypeInline; p = p.Parent() {
		switch p.Kind() {
		case ast.KindLink, ast.KindImage, ast.KindAutoLink:
			return true
		}
	}
	return false
}
