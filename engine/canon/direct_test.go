package canon

import (
	"encoding/json"
	"testing"
)

// TestDirectIsMarshalThenTransform holds direct to the old path
// (viaMarshal) on values of every kind it takes, and checks that it
// declines what it does not take, where JSON still answers as before.
func TestDirectIsMarshalThenTransform(t *testing.T) {
	type leaf struct {
		Name string `json:"name"`
		N    int    `json:"n,omitempty"`
	}
	type node struct {
		Z      string            `json:"z"`
		A      *node             `json:"a,omitempty"`
		B      []node            `json:"b"`
		ab     string            // unexported: not written
		A1     bool              `json:"a1"`
		A_     uint16            `json:"a_,omitempty"`
		Dollar string            `json:"$a,omitempty"`
		Dash   string            `json:"a-b"`
		Plain  string            // its Go name
		Skip   string            `json:"-"`
		Raw    json.RawMessage   `json:"raw,omitempty"`
		Nil    json.RawMessage   `json:"nilRaw"`
		Num    json.Number       `json:"num"`
		Any    any               `json:"any"`
		M      map[string]leaf   `json:"m,omitempty"`
		MNil   map[string]string `json:"mNil"`
		Empty  map[string]string `json:"empty"`
		P      *leaf             `json:"p"`
	}
	full := node{
		Z: "<é \u2028 \x01\x7f \"q\"\\ \b\f\n\r\t>", A: &node{Z: "inner", B: []node{}}, B: nil, ab: "hidden",
		A1: true, A_: 7, Dollar: "$", Dash: "-", Plain: "p", Skip: "skipped",
		Raw: json.RawMessage(` {"y": [1, 2.50, 1e3], "x": "\u00e9", "<": "&"} `), Num: "-123456789012345",
		Any: map[string]any{"k": []any{json.Number("0"), true, nil, "s", map[string]any{}}},
		M:   map[string]leaf{"b": {Name: "1"}, "a": {Name: "2", N: -3}, "A": {}, "a b": {}}, Empty: map[string]string{},
	}
	for _, c := range []struct {
		name    string
		v       any
		answers bool
	}{
		{"full", full, true},
		{"pointer", &full, true},
		{"nil", nil, true},
		{"nil pointer", (*node)(nil), true},
		{"interface of nil pointer", []any{(*leaf)(nil)}, true},
		{"large integer", []int64{1e15}, false},
		{"negative large integer", []int{-1e15}, false},
		{"largest plain integer", []int64{1e15 - 1, -1e15 + 1}, true},
		{"float", []any{1.5}, false},
		{"decimal Number", []json.Number{"1.0"}, false},
		{"empty Number", []json.Number{""}, true},
		{"-0 Number", []json.Number{"-0"}, false},
		{"bytes", []byte("x"), false},
		{"invalid UTF-8", []string{"\xff"}, false},
		{"escaped key", map[string]int{"é": 1}, false},
		{"quote key", map[string]int{`"`: 1}, false},
		{"int key", map[int]int{1: 1}, false},
		{"embedded", struct{ leaf }{leaf{Name: "x"}}, false},
		{"string option", struct {
			N int `json:"n,string"`
		}{1}, false},
		{"duplicate key", struct {
			A string
			B string `json:"A"`
		}{"1", "2"}, false},
		{"marshaler", struct{ R json.Marshaler }{json.RawMessage(`{"b":1,"a":2}`)}, false},
		{"raw in an interface", []any{json.RawMessage(`{"b":1,"a":2}`)}, true},
		{"numbers in raw", json.RawMessage(`[1e400]`), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, wantErr := viaMarshal(c.v)
			got, ok := direct(c.v)
			if ok != c.answers {
				t.Fatalf("direct answered %v, want %v", ok, c.answers)
			}
			if ok && (wantErr != nil || string(got) != string(want)) {
				t.Fatalf("direct:\n got %s\nwant %s (%v)", got, want, wantErr)
			}
			if j, err := JSON(c.v); string(j) != string(want) || (err == nil) != (wantErr == nil) {
				t.Fatalf("JSON = %s, %v; viaMarshal = %s, %v", j, err, want, wantErr)
			}
		})
	}
}
