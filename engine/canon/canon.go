// Package canon owns the one canonicalisation WorkRail hashes with:
// encoding/json, then RFC 8785 (JCS), then SHA-256. Everything content
// addressed (events, snapshots, compiled workflows) goes through it, so the
// same value always has the same bytes and the same digest.
package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/workrail/workrail/engine"
)

// JSON returns the RFC 8785 canonical JSON of v: encoding/json's
// encoding of v, canonicalised. direct writes it in one pass where it
// can; viaMarshal is the definition.
func JSON(v any) ([]byte, error) {
	if out, ok := direct(v); ok {
		return out, nil
	}
	return viaMarshal(v)
}

// viaMarshal is JSON as encoding/json, then transform.
func viaMarshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canon: marshal: %w", err)
	}
	out, err := transform(b, func() []byte { again, _ := json.Marshal(v); return again })
	if err != nil {
		return nil, fmt.Errorf("canon: jcs: %w", err)
	}
	return out, nil
}

// transform returns b, one JSON value, in its RFC 8785 canonical form:
// fastTransform's where it answers, else b rewritten in place by
// jsontext's Canonicalize, which refuses what JCS refuses
// (duplicate keys, invalid UTF-8, unpaired surrogates) but writes a
// number beyond a double as the largest double. Such a number is refused
// here, as JCS refuses it, so that no two values share a digest: output
// that holds the largest double has its input (original, b's bytes
// before) read again.
func transform(b []byte, original func() []byte) ([]byte, error) {
	if out, ok := fastTransform(b); ok {
		return out, nil
	}
	out := jsontext.Value(b)
	if err := out.Canonicalize(); err != nil {
		return nil, err
	}
	if bytes.Contains(out, largestDouble) && !inRange(original()) {
		return nil, errNumberRange
	}
	return out, nil
}

var (
	largestDouble  = []byte("1.7976931348623157e+308")
	errNumberRange = errors.New("a number is outside the range of an IEEE-754 double")
)

// inRange reports whether every number in b, one valid JSON value, is
// within the range of a double.
func inRange(b []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return true
		}
		if tok.Kind() == '0' {
			if _, err := strconv.ParseFloat(tok.String(), 64); err != nil {
				return false
			}
		}
	}
}

// Digest returns the canonical JSON of v and its SHA-256 digest.
func Digest(v any) ([]byte, engine.Digest, error) {
	b, err := JSON(v)
	if err != nil {
		return nil, engine.Digest{}, err
	}
	return b, engine.Sum(b), nil
}

// maxExactInteger is 2^53: every integer up to it has an exact IEEE-754
// double, the only number type the canonical form knows.
const maxExactInteger = 1 << 53

// CheckNumber reports whether the JSON number text n survives
// canonicalisation with its value: it must be in the range of a double and,
// written as an integer, at most 2^53 in magnitude (2^53+1 would become
// 2^53). Decimals are read as the nearest double, as every JSON reader does.
func CheckNumber(n string) error {
	f, err := strconv.ParseFloat(n, 64)
	if err != nil {
		return fmt.Errorf("%s is outside the range of an IEEE-754 double", n)
	}
	if strings.ContainsAny(n, ".eE") || math.Abs(f) < maxExactInteger {
		return nil
	}
	if i, err := strconv.ParseInt(n, 10, 64); err != nil || i > maxExactInteger || i < -maxExactInteger {
		return fmt.Errorf("the integer %s is larger than 2^53 and would be rounded", n)
	}
	return nil
}

// NumberProblem is a number in a decoded JSON value that CheckNumber
// refuses, with its JSON pointer.
type NumberProblem struct {
	Pointer string
	Err     error
}

// BadNumbers walks v (decoded with json.Decoder.UseNumber) and returns
// every number CheckNumber refuses, in document-independent order: object
// keys sorted, array items in order.
func BadNumbers(v any) []NumberProblem {
	if !hasBadNumber(v) {
		return nil // the common case, without a pointer built for every value
	}
	var out []NumberProblem
	walkNumbers(v, "", &out)
	return out
}

func hasBadNumber(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, item := range x {
			if hasBadNumber(item) {
				return true
			}
		}
	case []any:
		for _, item := range x {
			if hasBadNumber(item) {
				return true
			}
		}
	case json.Number:
		return CheckNumber(string(x)) != nil
	}
	return false
}

func walkNumbers(v any, ptr string, out *[]NumberProblem) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walkNumbers(x[k], ptr+"/"+engine.PointerToken(k), out)
		}
	case []any:
		for i, item := range x {
			walkNumbers(item, ptr+"/"+strconv.Itoa(i), out)
		}
	case json.Number:
		if err := CheckNumber(string(x)); err != nil {
			*out = append(*out, NumberProblem{Pointer: ptr, Err: err})
		}
	}
}
