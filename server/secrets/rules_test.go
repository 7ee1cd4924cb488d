package secrets

import (
	"strings"
	"testing"
)

// A rules file the reader cannot read as gitleaks would is refused,
// saying what it holds: a key the reader does not know above all, so a
// gitleaks release that starts using one is not half read.
func TestRulesRefused(t *testing.T) {
	const rule = "[[rules]]\nid = \"r\"\nregex = '''k(ey)'''\n"
	for _, tc := range []struct{ name, toml, want string }{
		{"extend", "[extend]\nuseDefault = true\n" + rule, "extend"},
		{"composite rule", rule + "[[rules.required]]\nid = \"other\"\n", "required"},
		{"rule's older allowlist", rule + "[rules.allowlist]\nregexes = ['''x''']\n", "allowlist"},
		{"targeted allowlist", rule + "[[allowlists]]\ntargetRules = [\"r\"]\nregexes = ['''x''']\n", "targetRules"},
		{"misspelt key", "[[rules]]\nid = \"r\"\nregexp = '''k'''\n", "regexp"},
		{"no id", "[[rules]]\nregex = '''k'''\n", "no id"},
		{"nothing to match", "[[rules]]\nid = \"r\"\n", "both regex and path are empty"},
		{"bad regex", "[[rules]]\nid = \"r\"\nregex = '''k('''\n", "missing closing )"},
		{"secret group past the groups", rule + "secretGroup = 2\n", "secret group 2"},
		{"condition", rule + "[[rules.allowlists]]\ncondition = \"XOR\"\nregexes = ['''x''']\n", `condition "XOR"`},
		{"regex target", rule + "[[rules.allowlists]]\nregexTarget = \"file\"\nregexes = ['''x''']\n", `regexTarget "file"`},
		{"empty allowlist", rule + "[[rules.allowlists]]\ndescription = \"nothing\"\n", "no commits, paths, regexes or stopwords"},
		{"both global forms", rule + "[allowlist]\nregexes = ['''x''']\n[[allowlists]]\nregexes = ['''y''']\n", "older form"},
		{"twice", rule + rule, "rule r is defined twice"},
		{"not TOML", "[[rules]\n", "test.toml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := loadRules(source{"test.toml", tc.toml})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// What gitleaks reads but text never matches is read and left out: rules
// about file paths, rules never reported; an allowlist of paths or
// commits alone never allows a finding.
func TestRulesForFilesLeftOut(t *testing.T) {
	rules, global, err := loadRules(source{"test.toml", `
[[rules]]
id = "path-only"
path = '''\.pem$'''
[[rules]]
id = "path-and-regex"
path = '''\.env$'''
regex = '''k'''
[[rules]]
id = "skipped"
regex = '''k'''
skipReport = true
[[rules]]
id = "kept"
regex = '''(?i)k(ey)'''
secretGroup = 1
keywords = ["KEY"]
[[rules.allowlists]]
condition = "AND"
paths = ['''x''']
regexes = ['''ey''']
[allowlist]
commits = ["abc"]
`})
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 || rules[0].id != "kept" || rules[0].keywords[0] != "key" {
		t.Fatalf("rules %+v, want kept alone, its keyword lower-cased", rules)
	}
	if rules[0].allowlists[0].allows("ey", "key", "key") || global[0].allows("ey", "key", "key") {
		t.Error("an allowlist naming paths or commits allowed text")
	}
}
