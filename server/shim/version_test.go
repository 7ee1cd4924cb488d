package shim

import "testing"

func TestOlderThan(t *testing.T) {
	cases := []struct {
		running, own string
		older        bool
	}{
		{"1.0.0", "2.0.0", true},
		{"1.9.9", "1.10.0", true}, // numerically, not as text
		{"1.2.3", "1.2.4", true},
		{"0.1.0-dev", "0.1.0", true}, // a pre-release precedes its release
		{"1.0.0-alpha", "1.0.0-alpha.1", true},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", true}, // numbers before words
		{"1.0.0-alpha.beta", "1.0.0-beta", true},
		{"1.0.0-beta.2", "1.0.0-beta.11", true},
		{"1.0.0-rc.1", "1.0.0", true},
		{"v1.0.0", "1.0.1", true},
		{"0.1.0-dev", "99.0.0", true},
		{"1.0.0", "1.0.0", false},
		{"1.0.0+build.1", "1.0.0+build.2", false}, // build metadata does not order
		{"2.0.0", "1.0.0", false},
		{"1.0.0", "1.0.0-rc.1", false},
		{"1.10.0", "1.9.0", false},
		{"", "1.0.0", false},
		{"(devel)", "1.0.0", false},
		{"1.0", "1.0.1", false},
		{"1.0.0", "abc", false},
		{"01.0.0", "2.0.0", false},     // leading zero: not semantic
		{"1.0.0-01", "2.0.0", false},   // numeric identifier with a leading zero
		{"1.0.0-", "2.0.0", false},     // empty pre-release
		{"1.0.0-a..b", "2.0.0", false}, // empty identifier
		{"1.0.0-a_b", "2.0.0", false},  // not alphanumeric
		{"1.-1.0", "2.0.0", false},
		{"1.0.0.0", "2.0.0", false},
	}
	for _, c := range cases {
		if got := olderThan(c.running, c.own); got != c.older {
			t.Errorf("olderThan(%q, %q) = %v, want %v", c.running, c.own, got, c.older)
		}
	}
}
