package secrets

import (
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// The rules are gitleaks' default configuration, copied from the pinned
// gitleaks module (gitleaks_gen.go), and WorkRail's own in the same
// format. They are read here as gitleaks' config package reads them
// (ViperConfig.Translate, Rule.Validate, Allowlist.Validate), without
// that package, which reads one file through viper and brought 17
// modules WorkRail needs for nothing else. What applies only to files (paths, commits) is read but not
// compiled. The reader is strict: a key it does not know fails the load
// (gitleaks' extend, a rule's required rules or its older single
// [rules.allowlist], a global allowlist's targetRules: none in the pinned
// rules), so a gitleaks release that starts using one is noticed, not
// skipped.

//go:generate go run gitleaks_gen.go

//go:embed gitleaks.toml
var gitleaksRules string

//go:embed rules.toml
var workrailRules string

// rule is one rule that applies to text (not to file paths).
type rule struct {
	id          string
	regex       *regexp.Regexp
	secretGroup int     // the group holding the secret; 0: see secretOf
	entropy     float64 // the Shannon entropy a secret must exceed; 0: none
	keywords    []string
	allowlists  []*allowlist
	gate        *gate // where its secret can be (gate.go); nil: anywhere
}

// allowlist is a gitleaks allowlist as it applies to text: what a
// finding that matches it is not.
type allowlist struct {
	and bool // condition AND: every check it has must pass; else one
	// target is what regex is matched against: "" the secret, "match"
	// the rule's whole match, "line" the lines the match is on.
	target string
	regex  *regexp.Regexp // its regexes as one, as gitleaks joins them; nil: none
	// stopWords finds its stopwords (in lower case): a secret holding
	// one is allowed. nil: none.
	stopWords *wordSet
	// elsewhere: it names commits or file paths, which text never has.
	elsewhere bool
}

// ruleFile is a rules file in gitleaks' format: the keys the reader
// knows.
type ruleFile struct {
	Title       string       `toml:"title"`
	Description string       `toml:"description"`
	MinVersion  string       `toml:"minVersion"`
	Rules       []ruleEntry  `toml:"rules"`
	Allowlist   *allowEntry  `toml:"allowlist"` // gitleaks' older form of Allowlists
	Allowlists  []allowEntry `toml:"allowlists"`
}

type ruleEntry struct {
	ID          string       `toml:"id"`
	Description string       `toml:"description"`
	Path        string       `toml:"path"`
	Regex       string       `toml:"regex"`
	SecretGroup int          `toml:"secretGroup"`
	Entropy     float64      `toml:"entropy"`
	Keywords    []string     `toml:"keywords"`
	Tags        []string     `toml:"tags"`
	SkipReport  bool         `toml:"skipReport"`
	Allowlists  []allowEntry `toml:"allowlists"`
}

type allowEntry struct {
	Description string   `toml:"description"`
	Condition   string   `toml:"condition"`
	Commits     []string `toml:"commits"`
	Paths       []string `toml:"paths"`
	RegexTarget string   `toml:"regexTarget"`
	Regexes     []string `toml:"regexes"`
	StopWords   []string `toml:"stopwords"`
}

// source is a rules file: its name, for errors, and its text.
type source struct{ name, text string }

// loadRules reads the rules files, in order: the rules that apply to
// text, sorted by id, and the global allowlists.
func loadRules(files ...source) ([]rule, []*allowlist, error) {
	var rules []rule
	var global []*allowlist
	for _, f := range files {
		rs, gs, err := readRules(f.text)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.name, err)
		}
		rules, global = append(rules, rs...), append(global, gs...)
	}
	slices.SortFunc(rules, func(a, b rule) int { return strings.Compare(a.id, b.id) })
	for i := 1; i < len(rules); i++ {
		if rules[i].id == rules[i-1].id {
			return nil, nil, fmt.Errorf("rule %s is defined twice", rules[i].id)
		}
	}
	return rules, global, nil
}

// readRules reads one rules file: its rules that apply to text (not those
// about file paths, nor those never reported) and its global allowlists.
func readRules(text string) ([]rule, []*allowlist, error) {
	var f ruleFile
	d := toml.NewDecoder(strings.NewReader(text))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			return nil, nil, fmt.Errorf("keys this reader does not know:\n%s", strict.String())
		}
		return nil, nil, err
	}
	var rules []rule
	for _, e := range f.Rules {
		if strings.TrimSpace(e.ID) == "" {
			return nil, nil, fmt.Errorf("a rule has no id (regex %q)", e.Regex)
		}
		if e.Regex == "" && e.Path == "" {
			return nil, nil, fmt.Errorf("rule %s: both regex and path are empty", e.ID)
		}
		if e.Regex == "" || e.Path != "" || e.SkipReport {
			continue // a rule about file names, or never reported
		}
		r, err := ruleOf(e)
		if err != nil {
			return nil, nil, fmt.Errorf("rule %s: %w", e.ID, err)
		}
		rules = append(rules, r)
	}
	global, err := globalAllowlists(f)
	return rules, global, err
}

// ruleOf is the rule an entry with a regex describes.
func ruleOf(e ruleEntry) (rule, error) {
	r := rule{id: e.ID, secretGroup: e.SecretGroup, entropy: e.Entropy}
	var err error
	if r.regex, err = compile(e.Regex); err != nil {
		return r, err
	}
	if e.SecretGroup > r.regex.NumSubexp() {
		return r, fmt.Errorf("secret group %d, but the regex has %d groups", e.SecretGroup, r.regex.NumSubexp())
	}
	for _, k := range e.Keywords {
		r.keywords = append(r.keywords, strings.ToLower(k))
	}
	for _, a := range e.Allowlists {
		l, err := allowlistOf(a)
		if err != nil {
			return r, fmt.Errorf("allowlist: %w", err)
		}
		r.allowlists = append(r.allowlists, l)
	}
	r.gate = gateOf(r)
	return r, nil
}

// globalAllowlists are the allowlists of every rule in f.
func globalAllowlists(f ruleFile) ([]*allowlist, error) {
	entries := f.Allowlists
	if f.Allowlist != nil {
		if len(entries) > 0 {
			return nil, errors.New("[allowlist] is gitleaks' older form of [[allowlists]]: use one")
		}
		entries = []allowEntry{*f.Allowlist}
	}
	var out []*allowlist
	for _, a := range entries {
		l, err := allowlistOf(a)
		if err != nil {
			return nil, fmt.Errorf("global allowlist: %w", err)
		}
		out = append(out, l)
	}
	return out, nil
}

// allowlistOf is the allowlist an entry describes.
func allowlistOf(a allowEntry) (*allowlist, error) {
	l := &allowlist{elsewhere: len(a.Commits) > 0 || len(a.Paths) > 0}
	switch strings.ToUpper(a.Condition) {
	case "AND", "&&":
		l.and = true
	case "", "OR", "||":
	default:
		return nil, fmt.Errorf("condition %q is neither AND nor OR", a.Condition)
	}
	switch a.RegexTarget {
	case "", "secret":
	case "match", "line":
		l.target = a.RegexTarget
	default:
		return nil, fmt.Errorf("regexTarget %q is none of secret, match and line", a.RegexTarget)
	}
	if !l.elsewhere && len(a.Regexes) == 0 && len(a.StopWords) == 0 {
		return nil, errors.New("it has no commits, paths, regexes or stopwords")
	}
	var err error
	if len(a.Regexes) > 0 {
		// One expression, as gitleaks joins them: a flag such as (?i)
		// at the top of one then holds for those after it too.
		if l.regex, err = compile("(?:" + strings.Join(a.Regexes, "|") + ")"); err != nil {
			return nil, err
		}
	}
	if len(a.StopWords) > 0 {
		words := make([]string, len(a.StopWords))
		for i, w := range a.StopWords {
			words[i] = strings.ToLower(w)
		}
		l.stopWords = newWordSet(words)
	}
	return l, nil
}

// compile compiles a regular expression of the rules.
func compile(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w", expr, err)
	}
	return re, nil
}

// allows tells whether the allowlist allows a finding in text, which has
// no file path and no commit: its secret, the rule's whole match and the
// lines the match is on.
func (a *allowlist) allows(secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	regexOK := a.regex != nil && target != "" && a.regex.MatchString(target)
	stopOK := a.stopWords != nil && secret != "" && a.stopWords.any(strings.ToLower(secret))
	if !a.and {
		return regexOK || stopOK
	}
	return !a.elsewhere && (a.regex == nil || regexOK) && (a.stopWords == nil || stopOK)
}
