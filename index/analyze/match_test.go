package analyze

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// leadWords returns the words of the repository's documentation (English
// prose, question sets, CJK and accented notes) and, deterministically,
// made-up words: random letters, and stems with suffixes every Snowball
// language strips, accented letters and combining marks among them.
func leadWords(t *testing.T) []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	err := filepath.WalkDir("../../docs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".tsv")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sc := newScanner(string(b))
		for {
			k, tok, _, _, ok := sc.next()
			if !ok {
				return nil
			}
			if k == pieceWord {
				add(string(tok))
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	letters := "abcdefghijklmnopqrstuvwxyz0123456789"
	suffixes := []string{"", "s", "es", "ies", "ied", "ing", "ed", "ly", "ness", "ment", "ation", "ational", "izer", "ement",
		"ations", "ement", "issement", "amment", "emment", "euse", "ances", "aciones", "amente", "imiento", "ándole",
		"heterna", "arna", "ande", "ene", "hetene", "ságok", "jainak", "ból", "nak", "ként", "e\u0301", "é", "ë"}
	for range 40000 {
		var b strings.Builder
		b.WriteByte(letters[r.IntN(len(letters))])
		for range r.IntN(6) {
			b.WriteByte(letters[r.IntN(26)])
		}
		b.WriteString(suffixes[r.IntN(len(suffixes))])
		add(b.String())
	}
	for _, w := range []string{"dying", "lying", "tying", "skies", "skis", "idly", "gently", "ugly", "early", "only", "singly",
		"news", "howe", "atlas", "cosmos", "bias", "andes", "yes", "yell", "youth", "y", "yy", "ies", "sses", "eed", "ing",
		"generate", "communism", "arsenal", "e\u0301cole", "a\u0300", "o\u0308l", "yeux", "ynys"} {
		add(w)
	}
	return out
}

// TestLeadPreserved holds analysis to what Leads relies on, in every
// language: a word token starting with an ASCII letter or digit gives no
// term, or one starting with that byte; when its second byte is one too,
// the term starts with both, is that first byte alone, or is one of
// English's three whole-word rewrites.
func TestLeadPreserved(t *testing.T) {
	words := leadWords(t)
	if len(words) < 20000 {
		t.Fatalf("only %d words", len(words))
	}
	rewrites := map[string]string{"dying": "die", "lying": "lie", "tying": "tie"}
	for _, l := range Langs() {
		bad := 0
		for _, w := range words {
			if !isLeadByte(w[0]) {
				continue
			}
			term := analyzeWord(l, w)
			switch {
			case term == "":
			case term[0] != w[0]:
			case len(w) < 2 || !isLeadByte(w[1]) || len(term) == 1 || term[1] == w[1]:
				continue
			case l == English && rewrites[w] == term:
				continue
			}
			if term != "" {
				t.Errorf("%s: %q gives %q", l, w, term)
				if bad++; bad > 10 {
					break
				}
			}
		}
	}
	for w, term := range rewrites {
		leads := LeadsOf([]string{term})
		if !leads.may([]byte(w)) {
			t.Errorf("the leads of %q pass over %q", term, w)
		}
	}
}

// TestMatchGivesAnalyzesMatches compares Match with Analyze filtered by
// term, on documentation and mixed-script texts, for query terms drawn
// from the texts themselves.
func TestMatchGivesAnalyzesMatches(t *testing.T) {
	texts := []string{
		"Café naïve München Straße, the lying dogs were dying; É\u0301cole 東京タワーに行きました 한국어 ёлка x² ½",
		"Generating generators generated GENERATION 3D 3d models, don't it’s ugly early news; eing aed uing oed tying lied",
	}
	for _, p := range []string{"../../docs/architecture.md", "../../docs/example-vault/Packing List.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	r := rand.New(rand.NewPCG(5, 6))
	a := New()
	for _, text := range texts {
		for _, l := range Langs() {
			var all []Token
			a.Analyze(text, l, func(tk Token) { all = append(all, tk) })
			for range 20 {
				var qs []string
				for range 1 + r.IntN(4) {
					qs = append(qs, all[r.IntN(len(all))].Term)
				}
				if r.IntN(4) == 0 {
					qs = append(qs, "zzz", "東京", "ecol")
				}
				var want, got []Token
				for _, tk := range all {
					if slices.Contains(qs, tk.Term) {
						want = append(want, tk)
					}
				}
				leads := LeadsOf(qs)
				a.Match(text, l, &leads, func(tk Token) {
					if slices.Contains(qs, tk.Term) {
						got = append(got, tk)
					}
				})
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, terms %q: Match gave %d tokens, Analyze %d", l, qs, len(got), len(want))
				}
			}
		}
	}
}
