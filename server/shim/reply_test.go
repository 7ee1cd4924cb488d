package shim

import (
	"strings"
	"testing"
)

// deep nests a value n arrays deep, past encoding/json's limit of 10000.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestInspect(t *testing.T) {
	cases := []struct {
		name   string
		line   string
		answer bool
		id     string // the reply's id, raw JSON
		method string
		code   int
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, true, `1`, "ping", 0},
		{"string id", `{"jsonrpc":"2.0","method":"tools/call","id":"a\"b"}`, true, `"a\"b"`, "tools/call", 0},
		{"id after deep params", `{"jsonrpc":"2.0","method":"tools/call","params":{"x":` + deep(10000) + `},"id":7}`, true, `7`, "tools/call", 0},
		{"far too deep", `{"jsonrpc":"2.0","id":8,"method":"ping","params":` + deep(200000) + `}`, true, `8`, "ping", 0},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, true, `null`, "", invalidRequest},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false, ``, "", 0},
		{"deep notification", `{"jsonrpc":"2.0","method":"notifications/x","params":` + deep(10001) + `}`, false, ``, "", 0},
		{"response", `{"jsonrpc":"2.0","id":3,"result":{}}`, false, ``, "", 0},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}`, false, ``, "", 0},
		{"truncated", `{"jsonrpc":"2.0","id":5,"method":"ping"`, true, `null`, "", parseError},
		{"truncated in a string", `{"jsonrpc":"2.0","id":5,"method":"pi`, true, `null`, "", parseError},
		{"not JSON", `hello`, true, `null`, "", parseError},
		{"trailing garbage", `{"jsonrpc":"2.0","id":5,"method":"ping"} x`, true, `null`, "", parseError},
		{"two objects", `{"id":1,"method":"ping"} {"id":2,"method":"ping"}`, true, `null`, "", parseError},
		{"trailing comma", `{"jsonrpc":"2.0","id":5,"method":"ping",}`, true, `null`, "", parseError},
		{"unclosed deep", `{"jsonrpc":"2.0","id":5,"method":"ping","params":` + strings.Repeat("[", 20000) + `}`, true, `null`, "", parseError},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, true, `null`, "", invalidRequest},
		{"empty batch", `[]`, true, `null`, "", invalidRequest},
		{"scalar", `42`, true, `null`, "", invalidRequest},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, true, `null`, "", invalidRequest},
		{"number method", `{"jsonrpc":"2.0","id":4,"method":5}`, true, `4`, "", invalidRequest},
		{"no method", `{"jsonrpc":"2.0","id":4,"params":{}}`, true, `4`, "", invalidRequest},
		{"empty object", `{}`, true, `null`, "", invalidRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := inspect([]byte(tc.line))
			if in.answer != tc.answer || in.code != tc.code || (tc.answer && string(in.id) != tc.id) || in.method != tc.method {
				t.Errorf("inspect = {answer %v, id %s, method %q, code %d, why %q}, want {answer %v, id %s, method %q, code %d}",
					in.answer, in.id, in.method, in.code, in.why, tc.answer, tc.id, tc.method, tc.code)
			}
		})
	}
}

// Every message goes to stdout as one line of well-formed JSON: a
// compact one as it is, one with line breaks between its tokens
// compacted, a malformed one not at all.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		name, msg, want string // want "": refused
	}{
		{"compact", `{"a":"x\ny"}`, `{"a":"x\ny"}` + "\n"},
		{"with its newline", `{"a":1}` + "\n", `{"a":1}` + "\n"},
		{"trailing whitespace", `{"a":1} ` + "\r\n\t", `{"a":1}` + "\n"},
		{"pretty", "{\n  \"a\": [\n    1,\r\n 2\n  ]\n}\n", `{"a":[1,2]}` + "\n"},
		{"malformed", `{"a":`, ""},
		{"a raw line break in a string", "{\"a\":\"x\ny\"}", ""},
		{"empty", "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := oneLine([]byte(tc.msg))
			if tc.want == "" {
				if err == nil {
					t.Errorf("%q was written as %q, want it refused", tc.msg, got)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("oneLine(%q) = %q, %v; want %q", tc.msg, got, err, tc.want)
			}
		})
	}
}
