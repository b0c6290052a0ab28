package uselite

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestTokenizerMatchesReference(t *testing.T) {
	dir := testModelDir(t)
	tok, err := LoadTokenizer(filepath.Join(dir, "vocab.json"))
	if err != nil {
		t.Fatal(err)
	}
	ref := loadReference(t)
	check := func(text string, want []int32) {
		t.Helper()
		if got := tok.Encode(text); !slices.Equal(got, want) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", text, got, want)
		}
	}
	for _, s := range ref.Sentences {
		check(s.Text, s.IDs)
	}
	for _, s := range ref.Tokens {
		check(s.Text, s.IDs)
	}
}

// Toy vocabularies exercise the JavaScript quirks without the model.
func TestTokenizerQuirks(t *testing.T) {
	reserved := []string{"�", "<s>", "</s>", "x1", "x2", "x3"}
	toy := func(entries ...any) *Tokenizer {
		pieces := append([]string(nil), reserved...)
		scores := make([]float64, len(reserved))
		for i := 0; i < len(entries); i += 2 {
			pieces = append(pieces, entries[i].(string))
			scores = append(scores, entries[i+1].(float64))
		}
		tok, err := newTokenizer(pieces, scores)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	// ids:         6      7       8      9      10       11     12      13 (a later "c")
	a := toy("▁", -1.0, "▁a", -2.0, "b", -3.0, "ab", -1.0, "▁ab", -10.0, ":", 0.0, "c", -4.0, "c", -0.5)
	// best[2] is 0 after "▁:" (0 + 0): the JS takes 0 for "not set yet",
	// so ":" after "▁" (-5) replaces it although it scores lower.
	b := toy("▁", 0.0, "▁:", 0.0, ":", -5.0)
	cases := []struct {
		tok  *Tokenizer
		text string
		want []int32
	}{
		{a, "", []int32{}},
		{a, "ab", []int32{6, 9}},         // ▁+ab (-2) beats ▁a+b (-5) and ▁ab (-10)
		{a, "c", []int32{6, 13}},         // a later duplicate wins
		{a, "zzz", []int32{6, 0}},        // a run of unknowns is one id
		{a, "z:z", []int32{6, 0, 11, 0}}, // unknowns apart stay apart
		{a, "ｃ", []int32{6, 13}},         // NFKC
		{a, "a\tb", []int32{6, 0, 8}},    // an unknown scores 0: "a" then tab, merged, beat ▁a
		{b, ":", []int32{6, 8}},
	}
	for _, c := range cases {
		if got := c.tok.Encode(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":          "",
		"a b":       "▁a▁b",
		" x ":       "▁▁x▁",
		"ﬁ ①":       "▁fi▁1",
		"e\u0301":   "▁é",
		"tab\there": "▁tab\there",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}
