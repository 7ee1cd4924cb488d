package secrets

import (
	"regexp"
	"strings"
	"unicode"
)

// A name says its value is a secret when its last word is PASS, PASSWORD,
// PASSWD, PASSPHRASE, SECRET, TOKEN or KEY (or ends with one, as
// PGPASSWORD or authToken): DB_PASSWORD, ADMIN_PASSWORD, apiKey,
// client_secret, AWS_SECRET_ACCESS_KEY, x-api-key. The last word is what
// the name is; words before it only say whose. So these are not secrets:
//
//   - a name whose last word says what it holds about the secret:
//     token_count, max_tokens, PASSWORD_MIN_LENGTH, SECRET_NAME,
//     TOKEN_URL, KEY_ID, key_file (a path, not the key);
//   - a word that only contains one: KEYBOARD_LAYOUT, BYPASS_CACHE,
//     PASSENGER, monkey, tokenizer;
//   - KEY alone (a lookup key: {"key": "…", "value": "…"}, an S3 object's
//     Key) or after a word naming a lookup key (sort_key, primary_key,
//     cache_key, ParameterKey, public_key);
//   - PWD alone (the shell's working folder); DB_PWD is a password.

// secretWords end a secret's name; a word ending with one names a
// secret too (PGPASSWORD, clientSecret's "clientsecret" spelled as one).
var secretWords = []string{"password", "passwd", "passphrase", "secret", "token", "apikey"}

// credentialKeys are the words that make KEY a credential when written
// as one word with it (secretkey, privatekey, accesskey).
var credentialKeys = map[string]bool{"api": true, "secret": true, "private": true, "access": true, "auth": true,
	"master": true, "signing": true, "encryption": true, "license": true, "client": true, "app": true}

// lookupKeys are the words that make KEY a lookup key, not a secret.
var lookupKeys = map[string]bool{"primary": true, "foreign": true, "sort": true, "partition": true, "hash": true,
	"range": true, "cache": true, "routing": true, "idempotency": true, "dedup": true, "dedupe": true, "lookup": true,
	"index": true, "unique": true, "composite": true, "object": true, "map": true, "group": true, "shard": true,
	"row": true, "column": true, "translation": true, "i18n": true, "message": true, "hot": true, "shortcut": true,
	"parameter": true, "attribute": true, "tag": true, "field": true, "property": true, "label": true,
	"public": true, "pub": true}

// secretName reports whether name names a secret.
func secretName(name string) bool {
	ws := words(name)
	for len(ws) > 0 && isDigits(ws[len(ws)-1]) {
		ws = ws[:len(ws)-1] // PASSWORD2
	}
	if len(ws) == 0 {
		return false
	}
	last := ws[len(ws)-1]
	switch last {
	case "pass":
		return true
	case "pwd":
		return len(ws) > 1
	case "key":
		return len(ws) > 1 && !lookupKeys[ws[len(ws)-2]]
	}
	for _, w := range secretWords {
		if strings.HasSuffix(last, w) {
			return true
		}
	}
	if p, ok := strings.CutSuffix(last, "key"); ok {
		return credentialKeys[p]
	}
	return false
}

// words splits a name into lower-case words: at anything not a letter
// or digit, where a lower-case letter meets an upper-case one (apiKey),
// before the last capital of a run followed by a lower-case letter
// (APIKey), and between letters and digits.
func words(name string) []string {
	var out []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, c := range rs {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			flush(i)
			continue
		}
		if start >= 0 && i > start {
			p := rs[i-1]
			switch {
			case unicode.IsLower(p) && unicode.IsUpper(c),
				unicode.IsDigit(p) != unicode.IsDigit(c),
				unicode.IsUpper(p) && unicode.IsUpper(c) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return out
}

func isDigits(w string) bool {
	return strings.IndexFunc(w, func(c rune) bool { return !unicode.IsDigit(c) }) < 0
}

// placeholderWords are values that stand for a secret without being one.
var placeholderWords = map[string]bool{"null": true, "nil": true, "none": true, "true": true, "false": true,
	"yes": true, "no": true, "on": true, "off": true, "undefined": true, "required": true, "optional": true,
	"changeme": true, "change_me": true, "redacted": true, "secret": true, "password": true, "token": true,
	"key": true, "empty": true, "todo": true, "tbd": true}

// references are values that read a secret from somewhere rather than
// hold it: ${VAR}, $VAR, %VAR%, {{ template }}, <placeholder>, a call
// (os.Getenv("X"), getpass()), an index (os.environ["X"]) or a path of
// three names or more (process.env.DB_PASSWORD).
var references = regexp.MustCompile(`^(?:\$\{.*\}|\$[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%|\{\{.*\}\}|<[^<>]*>|` +
	`[A-Za-z_$][\w$.]*\(.*\);?|[A-Za-z_$][\w$.]*\[.*\];?|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*){2,};?)$`)

// placeholder reports whether value (trimmed) stands for a secret rather
// than being one: empty, one character repeated (xxxx, ****), a word
// such as null or changeme, a marker of something redacted, or a
// reference.
func placeholder(value string) bool {
	if value == "" || strings.Count(value, value[:1]) == len(value) {
		return true
	}
	lower := strings.ToLower(value)
	if placeholderWords[lower] || strings.HasPrefix(lower, "[redacted") {
		return true
	}
	return references.MatchString(value)
}
