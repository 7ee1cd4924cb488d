package console

import (
	"testing"
	"time"

	"github.com/workrail/workrail/engine/event"
)

func TestMomentAndSpanText(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ms := func(d time.Duration) event.Millis { return event.MillisOf(now.Add(-d)) }
	for _, tt := range []struct {
		at   event.Millis
		want string
	}{
		{0, "—"},
		{ms(0), "just now"},
		{ms(-time.Hour), "just now"}, // ahead of the clock
		{ms(59 * time.Second), "just now"},
		{ms(4*time.Minute + 30*time.Second), "4 min ago"},
		{ms(5 * time.Hour), "5 h ago"},
		{ms(47 * time.Hour), "47 h ago"},
		{ms(3 * 24 * time.Hour), "3 days ago"},
		{ms(90 * 24 * time.Hour), "4 Dec 2025"},
	} {
		if got := at(tt.at, now).ago(); got != tt.want {
			t.Errorf("ago(%v) = %q; want %q", tt.at, got, tt.want)
		}
	}
	m := at(event.MillisOf(now.Add(123*time.Millisecond)), now)
	if m.machine() != "2026-03-04T05:06:07.123Z" || m.absolute() != "2026-03-04 05:06:07 UTC" {
		t.Errorf("machine %q, absolute %q", m.machine(), m.absolute())
	}
	for _, tt := range []struct {
		d         time.Duration
		text, iso string
	}{
		{850 * time.Millisecond, "850 ms", "PT0.85S"},
		{42 * time.Second, "42 s", "PT42S"},
		{4*time.Minute + 2*time.Second, "4 min 2 s", "PT242S"},
		{3*time.Hour + 5*time.Minute, "3 h 5 min", "PT11100S"},
		{2 * time.Hour, "2 h", "PT7200S"},
		{50 * time.Hour, "2 days 2 h", "PT180000S"},
	} {
		s := span{From: 1000, To: 1000 + event.Millis(tt.d/time.Millisecond)}
		if !s.known() || s.text() != tt.text || s.machine() != tt.iso {
			t.Errorf("%v: %q %q; want %q %q", tt.d, s.text(), s.machine(), tt.text, tt.iso)
		}
	}
	for _, s := range []span{{0, 5}, {5, 0}, {6, 5}} {
		if s.known() {
			t.Errorf("%+v is known", s)
		}
	}
}
