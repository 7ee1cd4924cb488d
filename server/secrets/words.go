package secrets

// wordSet finds every place a set of words occurs in a text in one pass
// (Aho-Corasick): the rules' keywords, the words a secret's context needs
// nearby and an allowlist's stop words, each a few hundred short words
// matched against every note the daemon stores.
//
// The automaton is a table of transitions by byte class: bytes that occur
// in no word share class 0, so a state's row is as wide as the distinct
// bytes of the words (a few dozen), not 256, and a text walks it with one
// lookup per byte.
type wordSet struct {
	class  [256]uint8
	width  int     // classes: distinct bytes of the words, plus one
	next   []int32 // next[state*width+class] is the state after that byte
	word   []int32 // the word ending at the state, or -1
	suffix []int32 // the longest proper suffix state that ends a word, or -1
}

// newWordSet builds the set of words; word i is reported as i. Empty words
// are never found; of equal words the last one given is reported.
func newWordSet(words []string) *wordSet {
	w := &wordSet{width: 1}
	for _, s := range words {
		for i := 0; i < len(s); i++ {
			if w.class[s[i]] == 0 {
				w.class[s[i]] = uint8(w.width)
				w.width++
			}
		}
	}
	w.addState()
	for i, s := range words {
		if s != "" {
			w.word[w.insert(s)] = int32(i)
		}
	}
	w.link()
	return w
}

func (w *wordSet) addState() int32 {
	for range w.width {
		w.next = append(w.next, -1)
	}
	w.word = append(w.word, -1)
	w.suffix = append(w.suffix, -1)
	return int32(len(w.word) - 1)
}

// insert adds s to the trie and returns the state it ends at.
func (w *wordSet) insert(s string) int32 {
	var at int32
	for i := 0; i < len(s); i++ {
		c := int32(w.class[s[i]])
		if w.next[at*int32(w.width)+c] < 0 {
			t := w.addState()
			w.next[at*int32(w.width)+c] = t
		}
		at = w.next[at*int32(w.width)+c]
	}
	return at
}

// link turns the trie into the automaton, breadth first: a missing
// transition goes where the longest proper suffix's would, and each state
// learns the nearest suffix state that ends a word.
func (w *wordSet) link() {
	width := int32(w.width)
	fail := make([]int32, len(w.word))
	var queue []int32
	for c := range width {
		if t := w.next[c]; t < 0 {
			w.next[c] = 0
		} else {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for c := range width {
			t := w.next[s*width+c]
			if t < 0 {
				w.next[s*width+c] = w.next[fail[s]*width+c]
				continue
			}
			f := w.next[fail[s]*width+c]
			fail[t] = f
			if w.word[f] >= 0 {
				w.suffix[t] = f
			} else {
				w.suffix[t] = w.suffix[f]
			}
			queue = append(queue, t)
		}
	}
}

// each calls fn with the end (exclusive) and the number of each word found
// in text, in order of end, longest first at the same end; it stops when
// fn returns false.
func (w *wordSet) each(text []byte, fn func(end, word int) bool) {
	var at int32
	width := int32(w.width)
	for i, b := range text {
		at = w.next[at*width+int32(w.class[b])]
		u := at
		if w.word[u] < 0 {
			u = w.suffix[u]
		}
		for ; u >= 0; u = w.suffix[u] {
			if !fn(i+1, int(w.word[u])) {
				return
			}
		}
	}
}

// any reports whether text holds one of the words.
func (w *wordSet) any(text string) bool {
	found := false
	w.each([]byte(text), func(int, int) bool {
		found = true
		return false
	})
	return found
}
