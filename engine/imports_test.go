package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The engine is the pure core: it may import the standard library's pure
// parts, its own subpackages and a few pure libraries, never the store,
// the server, a web or MCP framework, bbolt, or net/http.
func TestEngineImportsPointInward(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{
		"github.com/workrail/workrail/store", "github.com/workrail/workrail/server", "github.com/workrail/workrail/console",
		"github.com/workrail/workrail/web", "github.com/workrail/workrail/cmd",
		"go.etcd.io/bbolt", "github.com/go-chi/", "github.com/a-h/templ", "github.com/mark3labs/mcp-go", "net/http", "os/exec",
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if strings.HasPrefix(dep, f) {
				t.Errorf("engine depends on %s", dep)
			}
		}
	}
}
