package protocol

import "context"

// A retry key names one call a client made: WorkRail's shim mints one for
// each message it forwards and sends it again, unchanged, when it sends
// that message again because the daemon went away before answering. A
// start made under a key is made once: its retry is answered with the
// run the first made, so a daemon killed between its commit and its
// answer leaves no session nobody continues. The agent never sees a key.

type retryKeyContext struct{}

// WithRetryKey is ctx carrying key, if key is one a shim mints (16 to 64
// characters of base64url); any other value is dropped.
func WithRetryKey(ctx context.Context, key string) context.Context {
	if !wellFormedKey(key) {
		return ctx
	}
	return context.WithValue(ctx, retryKeyContext{}, key)
}

// RetryKey is the retry key ctx carries, "" for none.
func RetryKey(ctx context.Context) string {
	k, _ := ctx.Value(retryKeyContext{}).(string)
	return k
}

func wellFormedKey(k string) bool {
	if len(k) < 16 || len(k) > 64 {
		return false
	}
	for i := range len(k) {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
