package console

import (
	"net/url"
	"slices"
	"testing"
)

func TestPageOf(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6}
	cases := []struct {
		query      string
		want       []int
		prev, next string
		text       string
	}{
		{"", []int{0, 1, 2}, "", "/l?n=3", "showing 1–3 of 7 items"},
		{"n=3", []int{3, 4, 5}, "/l", "/l?n=6", "showing 4–6 of 7 items"},
		{"n=6&x=1", []int{6}, "/l?n=3&x=1", "", "showing 7–7 of 7 items"},
		{"n=99", []int{6}, "/l?n=3", "", "showing 7–7 of 7 items"}, // past the end: the last page
		{"n=-4", []int{0, 1, 2}, "", "/l?n=3", "showing 1–3 of 7 items"},
		{"n=bogus", []int{0, 1, 2}, "", "/l?n=3", "showing 1–3 of 7 items"},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		got, p := pageOf(items, "/l", q, "n", "item", "items", 3)
		if !slices.Equal(got, c.want) || p.Prev() != c.prev || p.Next() != c.next || p.Text() != c.text || !p.Paged() {
			t.Errorf("?%s: %v prev %q next %q %q; want %v prev %q next %q %q", c.query, got, p.Prev(), p.Next(), p.Text(), c.want, c.prev, c.next, c.text)
		}
	}
	if _, p := pageOf(items[:3], "/l", url.Values{}, "n", "item", "items", 3); p.Paged() {
		t.Error("a list that fits one page is paged")
	}
}
