package shim

import (
	"net/http"
	"strings"
	"testing"
)

// BenchmarkEraHeaders is what reading a line's protocol era adds to each
// message the shim forwards: a 2025-11-25 tool call with 2 KB of notes
// (the common case: one scan for the 2026-07-28 _meta key), and the same
// call of 2026-07-28 (decoded for its headers).
func BenchmarkEraHeaders(b *testing.B) {
	notes := strings.Repeat("Checked the retry path; ", 85)
	call := func(meta string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"continue_workflow","arguments":{"stateToken":"st.v1.abc","ackToken":"ack.v1.def","output":{"notesMarkdown":"` +
			notes + `"}}` + meta + `}}`)
	}
	for _, c := range []struct {
		name string
		msg  []byte
	}{
		{"legacy", call("")},
		{"modern", call(`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				eraHeaders(http.Header{}, c.msg)
			}
		})
	}
}
