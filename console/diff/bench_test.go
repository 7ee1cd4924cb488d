package diff_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/workrail/workrail/console/diff"
)

// jsonDoc is a pretty-printed compiled-workflow-like JSON document of about
// lines lines: steps with ids, prompts and provenance. Different seeds give
// documents that share only their punctuation and field names.
func jsonDoc(lines int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed))
	words := []string{"review", "the", "change", "file", "test", "build", "note", "gap", "step", "agent", "user", "output"}
	phrase := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	var sb strings.Builder
	sb.WriteString("{\n  \"id\": \"wr.generated\",\n  \"steps\": [\n")
	n := 3
	for i := 0; n < lines-4; i++ {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, "    {\n      \"step\": {\n        \"id\": \"step-%d-%d\",\n", seed, i)
		fmt.Fprintf(&sb, "        \"prompt\": %q,\n", phrase(8+r.IntN(8)))
		sb.WriteString("        \"provenance\": {\n          \"origin\": \"authored\"\n        },\n")
		fmt.Fprintf(&sb, "        \"title\": %q\n      }\n    }", phrase(3))
		n += 10
	}
	sb.WriteString("\n  ],\n  \"version\": \"1.0.0\"\n}\n")
	return sb.String()
}

// editDoc makes three small edits to doc, a quarter, half and three
// quarters of the way down: a line changed, one inserted, one deleted.
func editDoc(doc string) string {
	lines := strings.Split(doc, "\n")
	n := len(lines)
	lines[n/4] += " // changed"
	lines = slices.Insert(lines, n/2, `        "note": "inserted",`)
	lines = slices.Delete(lines, 3*n/4, 3*n/4+1)
	return strings.Join(lines, "\n")
}

// manyEdits changes k lines spread evenly over doc.
func manyEdits(doc string, k int) string {
	lines := strings.Split(doc, "\n")
	for i := 0; i < k; i++ {
		lines[i*len(lines)/k] += " // edited"
	}
	return strings.Join(lines, "\n")
}

// shuffleLines is doc's lines in a random order: the same lines, so none
// is dropped before the search, and a very large edit distance.
func shuffleLines(doc string, seed uint64) string {
	lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return strings.Join(lines, "\n") + "\n"
}

func reverseLines(doc string) string {
	lines := strings.Split(strings.TrimSuffix(doc, "\n"), "\n")
	slices.Reverse(lines)
	return strings.Join(lines, "\n") + "\n"
}

func benchLines(b *testing.B, a, c string) {
	b.ReportAllocs()
	var hunks []diff.Hunk
	for b.Loop() {
		hunks = diff.Lines(a, c, 3)
	}
	if len(hunks) == 0 {
		b.Fatal("no hunks")
	}
}

// BenchmarkFewEdits: a 5,000-line JSON document against itself with three
// small edits.
func BenchmarkFewEdits(b *testing.B) {
	doc := jsonDoc(5000, 1)
	benchLines(b, doc, editDoc(doc))
}

// BenchmarkManyEdits: 5,000 lines with 300 lines changed throughout, past
// the cost bound at the top split.
func BenchmarkManyEdits(b *testing.B) {
	doc := jsonDoc(5000, 1)
	benchLines(b, doc, manyEdits(doc, 300))
}

// BenchmarkUnrelated: two unrelated 5,000-line JSON documents of the same
// shape.
func BenchmarkUnrelated(b *testing.B) {
	benchLines(b, jsonDoc(5000, 1), jsonDoc(5000, 2))
}

// BenchmarkShuffled: a 5,000-line document against its lines shuffled, the
// worst case: every line occurs on both sides.
func BenchmarkShuffled(b *testing.B) {
	doc := jsonDoc(5000, 1)
	benchLines(b, doc, shuffleLines(doc, 3))
}

// BenchmarkUnified: writing the text of the few-edits diff.
func BenchmarkUnified(b *testing.B) {
	doc := jsonDoc(5000, 1)
	hunks := diff.Lines(doc, editDoc(doc), 3)
	b.ReportAllocs()
	for b.Loop() {
		_ = diff.Unified("pinned", "current", hunks)
	}
}
