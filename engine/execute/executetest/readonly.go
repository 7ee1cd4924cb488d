package executetest

import (
	"reflect"
	"testing"

	"github.com/workrail/workrail/engine/execute"
)

// readsCannotAppend: what View hands its callback has no way to write.
// That a read path appends nothing is meant to hold by type, and a test
// cannot show that a program fails to compile; so it looks at the types
// instead. Statically: the parameter type of View's callback, as this
// implementation declares it, lacks every method execute.Tx adds to
// execute.ReadTx (Append, Stamp, PutSnapshot, …), so no read path can call
// one without a type assertion. Dynamically: the value View passes does
// not satisfy execute.Tx either, so not even an assertion reaches the
// writing methods of the transaction type behind it.
func readsCannotAppend(t *testing.T, s Store) {
	writes := writingMethods()
	if len(writes) == 0 {
		t.Fatal("execute.Tx adds no method to execute.ReadTx: nothing would tell a write transaction from a read one")
	}
	view, ok := reflect.TypeOf(s).MethodByName("View")
	if !ok {
		t.Fatal("the store has no View")
	}
	callback := view.Type.In(view.Type.NumIn() - 1) // func(tx) error
	tx := callback.In(0)
	for _, name := range writes {
		if _, ok := tx.MethodByName(name); ok {
			t.Errorf("View's callback takes %s, which has the writing method %s", tx, name)
		}
	}
	id := seed(t, s)
	must(t, s.View(id, func(tx execute.ReadTx) error {
		if _, ok := tx.(execute.Tx); ok {
			t.Errorf("View handed over a %T, which a type assertion turns into an execute.Tx", tx)
		}
		return nil
	}))
}

// writingMethods are the methods of execute.Tx that execute.ReadTx lacks.
func writingMethods() []string {
	read := reflect.TypeFor[execute.ReadTx]()
	write := reflect.TypeFor[execute.Tx]()
	var out []string
	for i := range write.NumMethod() {
		if _, ok := read.MethodByName(write.Method(i).Name); !ok {
			out = append(out, write.Method(i).Name)
		}
	}
	return out
}
