package analyze

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestHotCacheMatchesAnalysis analyses more distinct words than a goroutine's
// table holds (so that it grows, fills and evicts), in several languages,
// each many times in random order: every token gets the term and number
// the memos give. It does so with the small tables of an idle daemon and
// with the large ones of a large pass (KeepCaches).
func TestHotCacheMatchesAnalysis(t *testing.T) {
	t.Run("small", func(t *testing.T) { hotCacheMatches(t, false) })
	t.Run("kept", func(t *testing.T) { hotCacheMatches(t, true) })
}

func hotCacheMatches(t *testing.T, keep bool) {
	rng := rand.New(rand.NewPCG(5, 6))
	words := make([]string, 0, 3*hotMax/4+5000)
	for i := range cap(words) {
		w := fmt.Sprintf("%s%d", []string{"run", "Running", "connect", "ÉTÉ", "quickly", "x"}[i%6], i)
		if i%97 == 0 {
			w = strings.Repeat("long", 8) + w // longer than a slot holds
		}
		words = append(words, w)
	}
	words = append(words, "the", "東京タワー", "don't", "café")
	a := New()
	if keep {
		defer a.KeepCaches()()
	}
	for round := range 3 {
		for _, lang := range []Lang{English, French, None} {
			rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
			text := strings.Join(words, " ")
			var got []Token
			a.Analyze(text, lang, func(tk Token) { got = append(got, tk) })
			var want []string // through the memos alone
			ref := New()
			for sc := newScanner(text); ; {
				k, tok, _, _, ok := sc.next()
				if !ok {
					break
				}
				kind := uint8(lang) + 1
				if k == pieceGram {
					kind = gramKind
				}
				if e := ref.entry(kind, tok); k != pieceDrop && e.term != "" {
					want = append(want, e.term)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("round %d, %v: %d tokens, want %d", round, lang, len(got), len(want))
			}
			for i, tk := range got {
				if tk.Term != want[i] {
					t.Fatalf("round %d, %v: token %d is %q, want %q", round, lang, i, tk.Term, want[i])
				}
				if id := TermID(tk.Term); tk.ID != id || id == 0 {
					t.Fatalf("token %q has number %d, TermID says %d", tk.Term, tk.ID, id)
				}
			}
		}
	}
}

func TestTermIDs(t *testing.T) {
	a, b := TermID("ragd-test-alpha"), TermID("ragd-test-beta")
	if a == 0 || b == 0 || a == b {
		t.Fatalf("numbers %d and %d", a, b)
	}
	if TermID("ragd-test-alpha") != a || TermID("") != 0 {
		t.Fatal("a term's number changed")
	}
	if n := TermIDs(); n <= int(max(a, b)) {
		t.Fatalf("TermIDs %d, but %d is handed out", n, max(a, b))
	}
}

// TestKeptCachesOutliveCollections: while KeepCaches is in effect, an
// Analyze call after garbage collections finds the table the one before
// filled; released, the tables go back to the pool.
func TestKeptCachesOutliveCollections(t *testing.T) {
	a := New()
	made := 0
	a.hot.New = func() any { made++; return newHotCache(hotMax) }
	release := a.KeepCaches()
	for range 3 {
		a.Analyze("kept tables of tokens", English, func(Token) {})
		runtime.GC()
		runtime.GC()
	}
	if made != 1 {
		t.Fatalf("%d tables made, want 1", made)
	}
	release()
	release() // a second call does nothing
	for i := range a.kept.slots {
		if a.kept.slots[i].Load() != nil {
			t.Fatalf("slot %d still holds a table after release", i)
		}
	}
}
