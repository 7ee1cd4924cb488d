package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
)

// CorpusCase is one text of the corpus (testdata/corpus.json and
// testdata/shapes.json): Rules are the rules that must match (none:
// nothing may), Secret what must disappear (the text around it must
// survive). Rule is Rules for a case with one.
type CorpusCase struct {
	Name   string   `json:"name"`
	Text   string   `json:"text"`
	Rule   string   `json:"rule"`
	Rules  []string `json:"rules"`
	Secret string   `json:"secret"`
}

// Want is the rules the case must match.
func (c CorpusCase) Want() []string {
	if c.Rule != "" {
		return []string{c.Rule}
	}
	return c.Rules
}

// LoadCorpus reads the corpus with its {{…}} placeholders filled in
// (Fill), the same values on every run.
func LoadCorpus(tb testing.TB) []CorpusCase {
	tb.Helper()
	var all []CorpusCase
	for _, f := range []string{"testdata/corpus.json", "testdata/shapes.json"} {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		var cases []CorpusCase
		if err := json.Unmarshal(raw, &cases); err != nil {
			tb.Fatalf("%s: %v", f, err)
		}
		all = append(all, cases...)
	}
	g := NewFakes(1)
	for i := range all {
		f := g.Case()
		all[i].Text, all[i].Secret = f.Fill(tb, all[i].Text), f.Fill(tb, all[i].Secret)
	}
	return all
}

// Fakes makes fake secrets from a seeded generator: never real ones, and
// the same on every run.
type Fakes struct{ rng *rand.Rand }

// NewFakes starts a generator at seed.
func NewFakes(seed uint64) *Fakes { return &Fakes{rng: rand.New(rand.NewPCG(seed, 0x5ec2e7))} }

// Case is a fresh set of values: within it, a name is one value.
func (g *Fakes) Case() *Fake { return &Fake{g: g, vals: map[string]string{}} }

// Fake is the values of one case.
type Fake struct {
	g    *Fakes
	vals map[string]string
}

// Alphabets of the values.
const (
	alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	symbols   = "!#$%&()*+,-./:;<=>?@[]^_{|}~"
	shellSafe = "!#$%*+-./:=?@^_~"
	b64       = alnum + "+/"
)

func (g *Fakes) pick(abc string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = abc[g.rng.IntN(len(abc))]
	}
	return string(b)
}

// Password is a password with symbols: every printable character but
// spaces, quotes and backslashes may be in it, and at least one symbol is.
func (g *Fakes) Password() string {
	return g.pick(alnum+symbols, 15) + g.pick(symbols, 1) + g.pick(alnum+symbols, 4)
}

// Value is the named fake: password; word (a password without the
// characters that end an unquoted shell word: , ; ) ] } & and quotes);
// aws/ and aws+ (an AWS secret access key starting so); akia (an access
// key id); ghp (a GitHub token); envline and envfile (a .env line and
// file holding the password). A name with digits after it (ghp2) is
// another value of the same kind.
func (f *Fake) Value(name string) string {
	if v, ok := f.vals[name]; ok {
		return v
	}
	g := f.g
	var v string
	switch strings.TrimRight(name, "0123456789") { // ghp2: a second one
	case "password":
		v = g.Password()
	case "word":
		v = g.pick(alnum+shellSafe, 15) + g.pick(shellSafe, 1) + g.pick(alnum, 4)
	case "aws/", "aws+":
		v = name[3:] + g.pick(b64, 39)
	case "akia":
		v = "AKIA" + g.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
	case "ghp":
		v = "ghp_" + g.pick(alnum, 36)
	case "envline":
		v = "DB_PASSWORD=" + f.Value("password")
	case "envfile":
		v = "APP_ENV=production\nDB_HOST=db.internal\nDB_PASSWORD=" + f.Value("password") + "\n"
	default:
		return ""
	}
	f.vals[name] = v
	return v
}

var placeholderRe = regexp.MustCompile(`\{\{([a-z0-9:/+]+)\}\}`)

// ReadFilled reads a testdata file with its placeholders filled (Fill)
// from a generator of its own.
func ReadFilled(tb testing.TB, path string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return []byte(NewFakes(2).Case().Fill(tb, string(raw)))
}

// Fill replaces each {{enc:…:name}} of text by the named value, encoded
// by each encoding from the right: base64, base64url (unpadded), hex,
// percent (every byte as %XX).
func (f *Fake) Fill(tb testing.TB, text string) string {
	tb.Helper()
	return placeholderRe.ReplaceAllStringFunc(text, func(m string) string {
		parts := strings.Split(m[2:len(m)-2], ":")
		v := f.Value(parts[len(parts)-1])
		if v == "" {
			tb.Fatalf("no fake named %q in %s", parts[len(parts)-1], m)
		}
		for i := len(parts) - 2; i >= 0; i-- {
			switch parts[i] {
			case "base64":
				v = base64.StdEncoding.EncodeToString([]byte(v))
			case "base64url":
				v = base64.RawURLEncoding.EncodeToString([]byte(v))
			case "hex":
				v = hex.EncodeToString([]byte(v))
			case "percent":
				var b strings.Builder
				for _, c := range []byte(v) {
					fmt.Fprintf(&b, "%%%02X", c)
				}
				v = b.String()
			default:
				tb.Fatalf("no encoding %q in %s", parts[i], m)
			}
		}
		return v
	})
}
