package bundle

// CompiledSchema is the package's compiled schema, for tests that
// validate against it.
var CompiledSchema = compiledSchema

// Seal sets every manifest digest of b to its part's, as a forger who
// knows the format would.
func (b *Bundle) Seal() error { return b.seal() }
