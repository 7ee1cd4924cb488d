package outcome_test

import "github.com/workrail/workrail/engine"

func engineID(s string) engine.EventID { return engine.EventID(s) }
