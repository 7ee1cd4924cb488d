package lanes

import (
	"strconv"
)

// The drawing's fixed geometry, in CSS pixels: the page's list gives each
// row RowHeight so the drawing lines up with it.
const (
	RowHeight  = 24
	LaneWidth  = 16
	nodeRadius = 4
	loopRadius = 6
	tipReach   = 6 // half the tip diamond's diagonal
	stubSide   = 8
	flagReach  = 5 // half the checkpoint triangle's base, and its height above the row's centre
)

// SVG draws the layout as a standalone image to show beside the list of
// rows: edges as paths (a bend, classed "fork", where a connection
// changes lane; in the colour and dash pattern of the branch they lead
// into), rows as circles, rows with checkpoints as triangles, loop folds
// as larger circles, the preferred tip's row as a diamond (hollow when
// the tip is one of its checkpoints) and stubs as squares. It is decorative
// (aria-hidden, not focusable), has no script, handler or style element:
// its colours are presentation attributes, mid-tones that read on light
// and dark pages alike, so it needs no stylesheet. Same layout, same
// bytes.
func (l Layout) SVG() string { return l.SVGRows(0, len(l.Rows)) }

// SVGRows draws rows from up to to (not included) as SVG draws the whole
// layout, for a page that lists only those rows: the canvas is their
// height, and an edge that crosses it from rows above or below is drawn
// cut at its edges.
func (l Layout) SVGRows(from, to int) string {
	from, to = max(from, 0), min(to, len(l.Rows))
	w := svg{b: make([]byte, 0, 128+max(to-from, 0)*96), top: from * RowHeight}
	w.s(`<svg xmlns="http://www.w3.org/2000/svg" class="lanes" width="`).n(max(l.Lanes, 1) * LaneWidth).s(`" height="`).n(max(to-from, 0) * RowHeight)
	w.s(`" aria-hidden="true" focusable="false">` + "\n")
	for i, r := range l.Rows[:max(to, 0)] {
		for _, o := range r.Out {
			if o.Row >= from {
				w.edge(i, r.Lane, o, l.Rows[o.Row])
			}
		}
	}
	for i := from; i < to; i++ {
		w.mark(i, l.Rows[i])
	}
	w.s("</svg>\n")
	return string(w.b)
}

// svg appends the drawing's text; top is the y of its first row.
type svg struct {
	b   []byte
	top int
}

func (w *svg) s(s string) *svg { w.b = append(w.b, s...); return w }
func (w *svg) n(n int) *svg    { w.b = strconv.AppendInt(w.b, int64(n), 10); return w }

func x(lane int) int         { return lane*LaneWidth + LaneWidth/2 }
func (w *svg) y(row int) int { return row*RowHeight + RowHeight/2 - w.top }

// branchInk is how the edges into each branch's nodes are drawn: the
// current branch (0) solid grey, the others in turn a colour and a dash
// pattern of their own, so two lanes never differ by colour alone. Every
// colour is at least 3:1 against the light and the dark panel.
var branchInk = []struct{ colour, dash string }{
	{"#7a8599", ""},
	{"#c2570c", "8 4"},
	{"#8a5cd0", "2 4"},
	{"#0f8a7e", "8 4 2 4"},
	{"#b8466e", "12 3"},
}

// ink is how edges into branch i are drawn.
func ink(i int) (colour, dash string) {
	if i > 0 {
		i = 1 + (i-1)%(len(branchInk)-1)
	}
	return branchInk[i].colour, branchInk[i].dash
}

// edge draws a connection from (row, lane) down to the row of o, to:
// straight down its own lane, or bending into o's lane within the row
// below and then straight down; in the ink of to's branch.
func (w *svg) edge(row, lane int, o Link, to Row) {
	x1, y1, x2, y2 := x(lane), w.y(row), x(o.Lane), w.y(o.Row)
	colour, dash := ink(to.Branch)
	class := "edge b" + strconv.Itoa(to.Branch)
	if dash != "" {
		dash = ` stroke-dasharray="` + dash + `"`
	}
	if lane == o.Lane {
		w.s(`<path class="`).s(class).s(`" fill="none" stroke="`).s(colour).s(`" stroke-width="2"`).s(dash).s(` d="M`).n(x1).s(" ").n(y1).s("V").n(y2).s(`"/>` + "\n")
		return
	}
	mid, bent := y1+RowHeight/2, y1+RowHeight
	w.s(`<path class="`).s(class).s(` fork" fill="none" stroke="`).s(colour).s(`" stroke-width="2"`).s(dash).s(` d="M`).n(x1).s(" ").n(y1).s("C").n(x1).s(" ").n(mid).s(" ").n(x2).s(" ").n(mid).s(" ").n(x2).s(" ").n(bent)
	if y2 > bent {
		w.s("V").n(y2)
	}
	w.s(`"/>` + "\n")
}

// The marks' colours hold 3:1 or more (WCAG's bar for graphics) on the
// Console's light panel and on its dark one: the drawing is an image, so
// one set serves both schemes (lanes' contrast test checks the output).
const (
	inkNode       = "#3f6fe0"
	inkLoop       = "#6f7a8e"
	inkTip        = "#268a45"
	inkCheckpoint = "#8a5fd4"
)

// mark draws a row's node: a shape, not only a colour, tells the kinds apart.
func (w *svg) mark(row int, r Row) {
	cx, cy := x(r.Lane), w.y(row)
	switch {
	case r.Tip:
		paint := `class="tip" fill="` + inkTip + `"`
		if r.TipCheckpoint {
			paint = `class="tip checkpoint" fill="#ffffff" stroke="` + inkTip + `" stroke-width="2"`
		}
		w.s(`<path `).s(paint).s(` d="M`).n(cx).s(" ").n(cy - tipReach).s("l").n(tipReach).s(" ").n(tipReach).
			s(" -").n(tipReach).s(" ").n(tipReach).s(" -").n(tipReach).s(" -").n(tipReach).s(`z"/>` + "\n")
	case r.Checkpoint():
		w.s(`<path class="checkpoint" fill="` + inkCheckpoint + `" d="M`).n(cx).s(" ").n(cy - flagReach).s("l").n(flagReach).s(" ").n(2 * flagReach).
			s("h-").n(2 * flagReach).s(`z"/>` + "\n")
	case r.Kind == StubRow:
		w.s(`<rect class="stub" fill="#ffffff" stroke="#7a8599" stroke-width="2" x="`).n(cx - stubSide/2).s(`" y="`).n(cy - stubSide/2).
			s(`" width="`).n(stubSide).s(`" height="`).n(stubSide).s(`"/>` + "\n")
	default:
		class, radius, fill := "node", nodeRadius, inkNode
		if r.Kind == LoopRow {
			class, radius, fill = "loop", loopRadius, inkLoop
		}
		w.s(`<circle class="`).s(class).s(`" fill="`).s(fill).s(`" cx="`).n(cx).s(`" cy="`).n(cy).s(`" r="`).n(radius).s(`"/>` + "\n")
	}
}
