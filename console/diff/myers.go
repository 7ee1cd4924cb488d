package diff

import "math"

// limits bound the search (see the package comment): how
// far one split may look, and how much the whole search may do.
type limits struct {
	// cost is how many edits the search for one split point may spend
	// before it settles for a good split instead of the best.
	cost int
	// work is how many steps (a diagonal tried, or a pair of equal lines
	// followed along one) the whole search may take before it gives up
	// on what is left and marks it all changed.
	work int
}

// bounds are the limits Lines searches with: git's xdiff uses the same
// cost floor; a million steps is a few milliseconds, and more than any
// ordinary edit of a document of tens of thousands of lines takes.
var bounds = limits{cost: 256, work: 1 << 20}

// search marks in ca and cb the lines of a and b (interned, so equal lines
// have equal numbers) that are not in the common subsequence it finds: a
// longest one unless a split costs more than lim.cost edits or the whole
// search more than lim.work steps (see the package comment).
func search(a, b []int, ca, cb []bool, lim limits) {
	if len(a) == 0 || len(b) == 0 {
		fill(ca)
		fill(cb)
		return
	}
	// A line that does not occur in the other text is changed whatever
	// the search finds; only the others take part in it.
	n := 0
	for _, id := range a {
		n = max(n, id+1)
	}
	for _, id := range b {
		n = max(n, id+1)
	}
	inA, inB := make([]bool, n), make([]bool, n)
	for _, id := range a {
		inA[id] = true
	}
	for _, id := range b {
		inB[id] = true
	}
	xs, xi := keep(a, inB, ca)
	ys, yi := keep(b, inA, cb)
	s := searcher{
		a: xs, b: ys,
		ca: make([]bool, len(xs)), cb: make([]bool, len(ys)),
		cost: lim.cost, work: lim.work,
	}
	size := len(xs) + len(ys) + 3
	s.fd, s.bd, s.off = make([]int, size), make([]int, size), len(ys)+1
	s.compare(0, len(xs), 0, len(ys))
	for k, c := range s.ca {
		if c {
			ca[xi[k]] = true
		}
	}
	for k, c := range s.cb {
		if c {
			cb[yi[k]] = true
		}
	}
}

// keep returns the lines of s whose number is marked in other, with their
// indexes in s, and marks the rest changed.
func keep(s []int, other []bool, changed []bool) (ids, at []int) {
	ids, at = make([]int, 0, len(s)), make([]int, 0, len(s))
	for i, id := range s {
		if other[id] {
			ids = append(ids, id)
			at = append(at, i)
		} else {
			changed[i] = true
		}
	}
	return ids, at
}

func fill(c []bool) {
	for i := range c {
		c[i] = true
	}
}

// searcher is one run of the linear-space Myers search over a and b.
// fd and bd hold, per diagonal k = x - y (at index k + off), the furthest x
// the forward and the backward search have reached. cost is the bound on
// edits per split, work the steps the search has left.
type searcher struct {
	a, b   []int
	ca, cb []bool
	fd, bd []int
	off    int
	cost   int
	work   int
}

// compare marks the changed lines of a[xlo:xhi] and b[ylo:yhi].
func (s *searcher) compare(xlo, xhi, ylo, yhi int) {
	for {
		for xlo < xhi && ylo < yhi && s.a[xlo] == s.b[ylo] {
			xlo++
			ylo++
		}
		for xlo < xhi && ylo < yhi && s.a[xhi-1] == s.b[yhi-1] {
			xhi--
			yhi--
		}
		if xlo == xhi || ylo == yhi || s.work <= 0 {
			// One side is empty, or the work is spent: the rest is
			// all changed.
			fill(s.ca[xlo:xhi])
			fill(s.cb[ylo:yhi])
			return
		}
		x, y := s.split(xlo, xhi, ylo, yhi)
		inside := xlo <= x && x <= xhi && ylo <= y && y <= yhi
		if !inside || (x == xlo && y == ylo) || (x == xhi && y == yhi) {
			// Not reached by the search as written; were it, the whole
			// box changed is still a correct answer, and it ends.
			fill(s.ca[xlo:xhi])
			fill(s.cb[ylo:yhi])
			return
		}
		s.compare(xlo, x, ylo, y)
		xlo, ylo = x, y // the second half without growing the stack
	}
}

// split returns a point (x, y) on a shortest edit path from (xlo, ylo) to
// (xhi, yhi), the ends of the middle snake; or, once the search has cost
// s.cost edits or spent the work left, the point furthest along that either
// direction has reached. It is GNU diff's diag: the two searches run toward
// each other one edit at a time, over the diagonals the box allows.
func (s *searcher) split(xlo, xhi, ylo, yhi int) (int, int) {
	a, b, fd, bd, off := s.a, s.b, s.fd, s.bd, s.off
	dmin, dmax := xlo-yhi, xhi-ylo // the diagonals of the box
	fmid, bmid := xlo-ylo, xhi-yhi // where each search starts
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	odd := (fmid-bmid)&1 != 0
	fd[off+fmid] = xlo
	bd[off+bmid] = xhi
	for cost := 1; ; cost++ {
		// One more edit forward: widen the diagonals by one each way,
		// the ones just outside marked unreachable.
		if fmin > dmin {
			fmin--
			fd[off+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			fd[off+fmax+1] = -1
		} else {
			fmax--
		}
		for k := fmax; k >= fmin; k -= 2 {
			lo, hi := fd[off+k-1], fd[off+k+1]
			x := hi // down from diagonal k+1
			if lo >= hi {
				x = lo + 1 // right from diagonal k-1
			}
			y := x - k
			x0 := x
			for x < xhi && y < yhi && a[x] == b[y] {
				x++
				y++
			}
			s.work -= 1 + x - x0
			fd[off+k] = x
			if odd && bmin <= k && k <= bmax && bd[off+k] <= x {
				return x, y
			}
		}
		// One more edit backward.
		if bmin > dmin {
			bmin--
			bd[off+bmin-1] = math.MaxInt
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			bd[off+bmax+1] = math.MaxInt
		} else {
			bmax--
		}
		for k := bmax; k >= bmin; k -= 2 {
			lo, hi := bd[off+k-1], bd[off+k+1]
			x := hi - 1 // left from diagonal k+1
			if lo < hi {
				x = lo // up from diagonal k-1
			}
			y := x - k
			x0 := x
			for x > xlo && y > ylo && a[x-1] == b[y-1] {
				x--
				y--
			}
			s.work -= 1 + x0 - x
			bd[off+k] = x
			if !odd && fmin <= k && k <= fmax && x <= fd[off+k] {
				return x, y
			}
		}
		if cost >= s.cost || s.work <= 0 {
			return s.furthest(xlo, xhi, ylo, yhi, fmin, fmax, bmin, bmax)
		}
	}
}

// furthest is the cost bound's way out of split: of the points the forward
// search has reached, the one with the largest x+y, and of the backward
// search's, the smallest; whichever has come further from its corner.
func (s *searcher) furthest(xlo, xhi, ylo, yhi, fmin, fmax, bmin, bmax int) (int, int) {
	fxy, fx := -1, 0
	for k := fmax; k >= fmin; k -= 2 {
		x := min(s.fd[s.off+k], xhi)
		y := x - k
		if y > yhi {
			x, y = yhi+k, yhi
		}
		if x+y > fxy {
			fxy, fx = x+y, x
		}
	}
	bxy, bx := math.MaxInt, 0
	for k := bmax; k >= bmin; k -= 2 {
		x := max(s.bd[s.off+k], xlo)
		y := x - k
		if y < ylo {
			x, y = ylo+k, ylo
		}
		if x+y < bxy {
			bxy, bx = x+y, x
		}
	}
	if (xhi+yhi)-bxy < fxy-(xlo+ylo) {
		return fx, fxy - fx
	}
	return bx, bxy - bx
}

// slide moves each run of changed lines of one text (its lines in ls,
// changed in changed; other is the other text's changed) as GNU diff's
// shift_boundaries does. A run moves up while the line above it equals its
// last line, and then down while the line below equals its first, merging
// with any run it meets; so a run that meets none ends as far down as it
// goes. Then, if at some point of that slide it lay opposite a run of the
// other text, it moves back up to the last such point, so that a deletion
// and an insertion show as one change. Sliding keeps the diff's length and
// its correctness: only which of several equal lines count as unchanged
// moves.
func slide(ls []line, changed, other []bool) {
	n := len(ls)
	// Padded copies: index p+1 holds line p, and lines -1 and n (and the
	// other text's ends) read as unchanged.
	ch := make([]bool, n+2)
	copy(ch[1:], changed)
	ot := make([]bool, len(other)+2)
	copy(ot[1:], other)
	c := func(p int) bool { return ch[p+1] }
	set := func(p int, v bool) { ch[p+1] = v }
	o := func(p int) bool { return ot[p+1] }

	i, j := 0, 0
	for {
		// Find the start of the next run, keeping j on the matching
		// line of the other text.
		for i < n && !c(i) {
			for o(j) {
				j++
			}
			j++
			i++
		}
		if i == n {
			break
		}
		start := i
		for i++; c(i); i++ {
		}
		for o(j) {
			j++
		}
		var corresponding int
		for {
			runlength := i - start
			// Up, merging with runs above.
			for start > 0 && ls[start-1] == ls[i-1] {
				start--
				set(start, true)
				i--
				set(i, false)
				for c(start - 1) {
					start--
				}
				for j--; o(j); j-- {
				}
			}
			// The end of the run, at the last point where it lies
			// opposite a run of the other text; n if nowhere.
			corresponding = n
			if o(j - 1) {
				corresponding = i
			}
			// Down, merging with runs below.
			for i != n && ls[start] == ls[i] {
				set(start, false)
				start++
				set(i, true)
				i++
				for c(i) {
					i++
				}
				for j++; o(j); j++ {
					corresponding = i
				}
			}
			if runlength == i-start {
				break
			}
		}
		// Back up to the last point opposite a run of the other text.
		for corresponding < i {
			start--
			set(start, true)
			i--
			set(i, false)
			for j--; o(j); j-- {
			}
		}
	}
	copy(changed, ch[1:n+1])
}
