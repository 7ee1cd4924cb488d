package token_test

import (
	"testing"

	"github.com/workrail/workrail/engine/token"
)

var realistic = token.Claims{Kind: token.Ack, Key: 1, Session: 1e6, Run: 100, Node: 1e5, Attempt: 1000}

func BenchmarkMint(b *testing.B) {
	r := ring1(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Mint(realistic); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	r := ring1(b)
	s := mint(b, r, realistic)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Parse(s, token.Ack); err != nil {
			b.Fatal(err)
		}
	}
}
