package store

import (
	"encoding/json"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/workrail/workrail/engine"
	"github.com/workrail/workrail/engine/event"
	"github.com/workrail/workrail/engine/project"
)

var nodeRecords = []string{
	`{"id":"node_1","run":"run_1","kind":"step","snapshot":"sha256:` + hex64 + `","createdAt":3,"attempts":0,"lastActivity":3}`,
	`{"id":"node_7","run":"run_2","kind":"checkpoint","snapshot":"sha256:` + hex64 + `","createdAt":40,"createdTime":1767322245000,` +
		`"parent":"node_6","children":["node_8","node_12"],"attempts":3,"outputs":[41,44],"pathOutputs":5,"lastActivity":60,"gaps":[45,46,47]}`,
	`{}`,
	`{"id":"node_1","unknown":1}`,
	`{"id":"node_1","children":[]}`,
	`{"id":"node_1","kind":"st\u0065p"}`,
	`{"id":"node_1","parent":null}`,
	`{"id":"node_x"}`,
	`{"id":"node_1","attempts":4294967296}`,
	`{"id":"node_1","pathOutputs":-1}`,
	`{"id":"node_1","outputs":[1,1.5]}`,
	`{"id":"node_1","createdAt":01}`,
	`{"id":"node_1","children":["node_2"],"children":["node_3"]}`,
	`{"id":"node_1"} `,
	`{"ID":"node_1"}`,
	`[]`,
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestDecodeNodeIsUnmarshal: decodeNode reads every record as
// json.Unmarshal does, and takes its own way on what json.Marshal writes.
func TestDecodeNodeIsUnmarshal(t *testing.T) {
	for _, rec := range nodeRecords {
		sameAsUnmarshal(t, []byte(rec))
	}
	n := project.Node{ID: 7, Run: 2, Kind: event.NodeStep, CreatedAt: 40, Parent: 6, Children: []engine.NodeID{8, 12},
		Attempts: 3, Outputs: []engine.EventIndex{41}, PathOutputs: 5, LastActivity: 60, Gaps: []engine.EventIndex{45}}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	var fast project.Node
	if !fastNode(b, &fast) || !reflect.DeepEqual(fast, n) {
		t.Fatalf("the record json.Marshal writes takes the long way, or reads back as %+v", fast)
	}
}

func sameAsUnmarshal(t *testing.T, b []byte) {
	t.Helper()
	var got, want project.Node
	errGot, errWant := decodeNode(b, &got), json.Unmarshal(b, &want)
	if (errGot == nil) != (errWant == nil) || errWant == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\ndecodeNode %+v, %v\nUnmarshal  %+v, %v", b, got, errGot, want, errWant)
	}
}

// FuzzDecodeNode holds decodeNode to json.Unmarshal, and its fast path,
// wherever it reads, to the general one.
func FuzzDecodeNode(f *testing.F) {
	for _, rec := range nodeRecords {
		f.Add(rec)
	}
	f.Fuzz(func(t *testing.T, rec string) {
		sameAsUnmarshal(t, []byte(rec))
		var fast, general project.Node
		if fastNode([]byte(rec), &fast) && (jsonv1.Unmarshal([]byte(rec), &general) != nil || !reflect.DeepEqual(fast, general)) {
			t.Fatalf("%s: the fast path %+v; json/v2 (v1 API) %+v", rec, fast, general)
		}
	})
}

// BenchmarkDecodeNode reads the record json.Marshal writes of a node
// with children, outputs and gaps: decodeNode (its fast path), json/v2
// with encoding/json's semantics (the general path), json/v2, and
// encoding/json.
func BenchmarkDecodeNode(b *testing.B) {
	rec := []byte(nodeRecords[1])
	for _, c := range []struct {
		name   string
		decode func([]byte, *project.Node) error
	}{{"decodeNode", decodeNode}, {"json/v2 (v1 API)", func(b []byte, n *project.Node) error { return jsonv1.Unmarshal(b, n) }},
		{"json/v2", func(b []byte, n *project.Node) error { return jsonv2.Unmarshal(b, n) }},
		{"encoding/json", func(b []byte, n *project.Node) error { return json.Unmarshal(b, n) }}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var n project.Node
				if err := c.decode(rec, &n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
