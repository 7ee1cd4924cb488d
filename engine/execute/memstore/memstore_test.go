package memstore_test

import (
	"testing"

	"github.com/workrail/workrail/engine/execute/executetest"
	"github.com/workrail/workrail/engine/execute/memstore"
)

func TestContract(t *testing.T) {
	executetest.Contract(t, func(*testing.T) executetest.Store { return memstore.New() })
}
