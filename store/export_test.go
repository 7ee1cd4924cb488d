package store

import "github.com/workrail/workrail/engine/project"

// SetOverviewDefinition makes this test binary keep overviews as a build
// whose overview definition is version v, changed by shape after each
// fold, would: one binary plays two builds. restore puts this build's
// definition back.
func SetOverviewDefinition(v uint32, shape func(*project.Overview)) (restore func()) {
	old := definitions
	definitions.versions.overview = v
	definitions.shapeOverview = shape
	return func() { definitions = old }
}

// FloorCommit returns one commit of BenchmarkCommitFloor's transaction on
// s, through bbolt alone, for benchmarks outside the package.
func FloorCommit(s *Store) func() error {
	write := floorWrite()
	return func() error { return s.db.Update(write) }
}
