package shim

import (
	"strconv"
	"strings"
)

// semver is a version of the form MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD].
type semver struct {
	core [3]uint64
	pre  []string // dot-separated pre-release identifiers; none for a release
}

// parseSemver reads a semantic version, with or without a leading "v". ok
// is false for anything else, such as a commit hash or "(devel)".
func parseSemver(s string) (v semver, ok bool) {
	s = strings.TrimPrefix(s, "v")
	s, _, _ = strings.Cut(s, "+") // build metadata never orders versions
	s, pre, hasPre := strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return semver{}, false
	}
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return semver{}, false
		}
		v.core[i] = n
	}
	if hasPre {
		v.pre = strings.Split(pre, ".")
		for _, id := range v.pre {
			if !validIdent(id) {
				return semver{}, false
			}
		}
	}
	return v, true
}

// validIdent: a pre-release identifier is alphanumerics and hyphens, and
// a numeric one has no leading zero.
func validIdent(id string) bool {
	if id == "" || strings.TrimLeft(id, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") != "" {
		return false
	}
	_, isNum := number(id)
	return isNum || strings.TrimLeft(id, "0123456789") != ""
}

// number reads a numeric identifier: digits, no leading zero.
func number(s string) (uint64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	return n, err == nil
}

// compare orders two versions by semantic-versioning precedence: -1, 0 or 1.
func (a semver) compare(b semver) int {
	for i := range a.core {
		if a.core[i] != b.core[i] {
			return cmp(a.core[i] < b.core[i])
		}
	}
	// A release outranks its pre-releases.
	switch {
	case len(a.pre) == 0 && len(b.pre) == 0:
		return 0
	case len(a.pre) == 0:
		return 1
	case len(b.pre) == 0:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		if c := compareIdent(a.pre[i], b.pre[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a.pre) == len(b.pre):
		return 0
	case len(a.pre) < len(b.pre):
		return -1
	}
	return 1
}

// compareIdent orders pre-release identifiers: numbers numerically and
// below words, words in ASCII order.
func compareIdent(a, b string) int {
	na, aNum := number(a)
	nb, bNum := number(b)
	switch {
	case aNum && bNum:
		if na == nb {
			return 0
		}
		return cmp(na < nb)
	case aNum:
		return -1
	case bNum:
		return 1
	}
	return strings.Compare(a, b)
}

func cmp(less bool) int {
	if less {
		return -1
	}
	return 1
}

// olderThan reports whether version running is older than version own.
// Equal versions, and any version that is not semantic, are never older:
// a shim replaces a daemon only when it is sure to be newer.
func olderThan(running, own string) bool {
	r, ok1 := parseSemver(running)
	o, ok2 := parseSemver(own)
	return ok1 && ok2 && r.compare(o) < 0
}
