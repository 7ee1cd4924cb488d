package secrets

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// gitleaksConfig is what gitleaks' own config package builds from its
// default rules and WorkRail's, read as one file through viper.
func gitleaksConfig(t *testing.T) config.Config {
	t.Helper()
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig + "\n" + workrailRules)); err != nil {
		t.Fatal(err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		t.Fatal(err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The embedded copy is the pinned module's file, under its header.
func TestRulesCopyIsTheModules(t *testing.T) {
	_, body, ok := strings.Cut(gitleaksRules, "\n\n")
	if !ok || body != config.DefaultConfig {
		t.Fatal("gitleaks.toml is not config/gitleaks.toml of the gitleaks module in go.mod: run go generate ./server/secrets")
	}
}

// The rules read here are the ones gitleaks' config package builds, rule
// by rule, less those about file paths or never reported; each allowlist
// allows what gitleaks' allows.
func TestRulesAreGitleaks(t *testing.T) {
	cfg := gitleaksConfig(t)
	rules, global, err := loadRules(gitleaksRules, workrailRules)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]rule{}
	for _, r := range rules {
		byID[r.id] = r
	}
	probes := allowProbes(t)
	applies := 0
	for _, id := range slices.Sorted(maps.Keys(cfg.Rules)) {
		g := cfg.Rules[id]
		r, ok := byID[id]
		if want := g.Regex != nil && g.Path == nil && !g.SkipReport; ok != want {
			t.Errorf("%s: read %v, want %v", id, ok, want)
		}
		if !ok {
			continue
		}
		applies++
		if r.regex.String() != g.Regex.String() || r.secretGroup != g.SecretGroup || r.entropy != g.Entropy || !slices.Equal(r.keywords, g.Keywords) {
			t.Errorf("%s: %q group %d entropy %v keywords %q;\ngitleaks %q group %d entropy %v keywords %q", id,
				r.regex, r.secretGroup, r.entropy, r.keywords, g.Regex, g.SecretGroup, g.Entropy, g.Keywords)
		}
		sameAllowlists(t, id, r.allowlists, g.Allowlists, probes)
	}
	if applies != len(rules) || applies < 200 {
		t.Errorf("%d rules read, %d of gitleaks' apply", len(rules), applies)
	}
	sameAllowlists(t, "global", global, cfg.Allowlists, probes)
}

func sameAllowlists(t *testing.T, where string, got []*allowlist, want []*config.Allowlist, probes []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d allowlists, gitleaks %d", where, len(got), len(want))
		return
	}
	for i, g := range want {
		a := got[i]
		var res []string
		for _, r := range g.Regexes {
			res = append(res, r.String())
		}
		regex := ""
		if a.regex != nil {
			regex = a.regex.String()
		}
		if len(res) > 0 && regex != "(?:"+strings.Join(res, "|")+")" || len(res) == 0 && a.regex != nil {
			t.Errorf("%s allowlist %d: regex %q, gitleaks %q", where, i, regex, res)
		}
		words := slices.Sorted(slices.Values(g.StopWords))
		if a.and != (g.MatchCondition == config.AllowlistMatchAnd) || a.target != g.RegexTarget ||
			a.elsewhere != (len(g.Commits) > 0 || len(g.Paths) > 0) || !slices.Equal(a.stopWords, words) {
			t.Errorf("%s allowlist %d: and %v target %q elsewhere %v %d stopwords; gitleaks %v %q %d commits %d paths %d stopwords",
				where, i, a.and, a.target, a.elsewhere, len(a.stopWords), g.MatchCondition, g.RegexTarget, len(g.Commits), len(g.Paths), len(g.StopWords))
		}
		for _, p := range append(probes, words...) {
			if a.allows(p, p, p) != gitleaksAllows(g, p, p, p) {
				t.Errorf("%s allowlist %d: allows(%q) %v, gitleaks' %v", where, i, p, a.allows(p, p, p), !a.allows(p, p, p))
			}
		}
	}
}

// gitleaksAllows is the check the scanner made with gitleaks'
// allowlists before it read the rules itself.
func gitleaksAllows(a *config.Allowlist, secret, match, line string) bool {
	target := secret
	switch a.RegexTarget {
	case "match":
		target = match
	case "line":
		target = line
	}
	regexOK := a.RegexAllowed(target)
	stopOK, _ := a.ContainsStopWord(secret)
	if a.MatchCondition == config.AllowlistMatchAnd {
		if len(a.Commits) > 0 || len(a.Paths) > 0 {
			return false
		}
		return (len(a.Regexes) == 0 || regexOK) && (len(a.StopWords) == 0 || stopOK)
	}
	return regexOK || stopOK
}

// allowProbes are strings to try the allowlists on: the corpus' texts,
// lines and words, and placeholders of the shapes gitleaks allows (and
// one a BitBake recipe's allowlist, AND with paths, must not).
func allowProbes(t *testing.T) []string {
	out := []string{"", "true", "null", "xxxxxxxx", "${DB_PASSWORD}", "$password", "{{ .Values.token }}", "%APP_KEY%", "EXAMPLEKEY", "st.v1.abcDEF_-12", `SRC_URI = "abc123`}
	for _, c := range LoadCorpus(t) {
		out = append(out, c.Text, c.Secret)
		out = append(out, strings.Split(c.Text, "\n")...)
		out = append(out, strings.Fields(c.Text)...)
	}
	return out
}
