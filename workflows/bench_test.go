package workflows_test

import (
	"testing"

	"github.com/workrail/workrail/engine/compile"
	"github.com/workrail/workrail/engine/workflow"
)

// BenchmarkCompileLargest parses, compiles and hashes the largest bundled
// workflow: the work start_workflow does for a file it has not cached.
func BenchmarkCompileLargest(b *testing.B) {
	var largest file
	for _, f := range bundledFiles(b) {
		if len(f.src) > len(largest.src) {
			largest = f
		}
	}
	b.Logf("%s, %d bytes", largest.name, len(largest.src))
	b.SetBytes(int64(len(largest.src)))
	b.ReportAllocs()
	for b.Loop() {
		w, err := workflow.Parse(largest.src)
		if err != nil {
			b.Fatal(err)
		}
		c, err := compile.Compile(w)
		if err != nil {
			b.Fatal(err)
		}
		if c.Hash == (compile.Compiled{}).Hash {
			b.Fatal("zero hash")
		}
	}
}
