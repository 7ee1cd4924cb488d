package store

import (
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/workrail/workrail/engine/project"
)

// decodeNode reads a node's index record. Every read of a run walks
// nodes (a rehydrate's recap, an advance's resume record, the Console's
// pages), so it goes through json/v2 with encoding/json's semantics (the
// v1 API over v2): the same nodes and errors as json.Unmarshal, in about
// a quarter of its time (BenchmarkDecodeNode); TestDecodeNodeIsUnmarshal
// and FuzzDecodeNode hold the two to the same nodes.
func decodeNode(b []byte, n *project.Node) error { return jsonv1.Unmarshal(b, n) }
