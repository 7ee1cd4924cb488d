package console

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

func TestClip(t *testing.T) {
	cases := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{strings.Repeat("a", 3000), 1000, strings.Repeat("a", 1000) + " … (1 KiB more not shown; the session's bundle holds all of it)"},
		{"ééé", 3, "é … (4 bytes more not shown; the session's bundle holds all of it)"}, // never half a character
		{strings.Repeat("x", 5<<20), 4, "xxxx … (5.0 MiB more not shown; the session's bundle holds all of it)"},
	}
	for _, c := range cases {
		if got := clip(c.s, c.max); got != c.want {
			t.Errorf("clip(%.20q…, %d) = %.80q, want %.80q", c.s, c.max, got, c.want)
		}
	}
}

// A gap summary as long as an imported bundle may carry is shown cut on
// the gaps page, which says so.
func TestGapsPageBoundsOneHugeSummary(t *testing.T) {
	huge := strings.Repeat("s", 20<<20)
	l := gapsList{Gaps: []openGap{{Session: 1, GapState: project.GapState{ID: "evt_1_2", Gap: event.GapRecordedData{Summary: huge}}}}, Total: 1, Open: 1}
	var b bytes.Buffer
	if err := gapsPage(chrome{Title: "Open gaps"}, l).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 64<<10 || !strings.Contains(b.String(), "20.0 MiB more not shown") {
		t.Errorf("the page is %d bytes; want the summary cut to %d bytes and a word on what was left out", b.Len(), maxShownSummary)
	}
}
