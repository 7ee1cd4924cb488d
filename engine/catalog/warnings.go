package catalog

// SourceWarningCode is the closed set of things a listing warns of about
// a source as a whole, rather than about one of its files.
type SourceWarningCode string

// The source warnings.
const (
	// SourceStale: the last fetch of a repository failed; the commit
	// fetched before keeps being served.
	SourceStale SourceWarningCode = "SOURCE_STALE"
	// SourceUnavailable: no fetch of a repository has succeeded yet, so it
	// serves nothing; the other sources are read as ever.
	SourceUnavailable SourceWarningCode = "SOURCE_UNAVAILABLE"
)

// SourceWarningCodes lists every source warning code.
func SourceWarningCodes() []SourceWarningCode {
	return []SourceWarningCode{SourceStale, SourceUnavailable}
}

// SourceWarning is what a listing says about a source that is not
// serving what it names: which source, since when, and why.
type SourceWarning struct {
	Code   SourceWarningCode `json:"code"`
	Source Source            `json:"source"`
	// LastSynced is when the commit served was fetched, RFC 3339 in UTC;
	// absent when none was.
	LastSynced string `json:"lastSynced,omitempty"`
	Message    string `json:"message"`
}

// WithWarnings is c with the warnings about its sources as they stand
// now: a catalog is kept while its files are unchanged, and a source
// may fail or recover meanwhile.
func (c *Catalog) WithWarnings(w []SourceWarning) *Catalog {
	if len(w) == 0 && len(c.Warnings) == 0 {
		return c
	}
	cp := *c
	cp.Warnings = w
	return &cp
}
