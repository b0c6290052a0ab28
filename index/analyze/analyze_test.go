package analyze

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// terms returns the terms of text analysed as lang.
func terms(a *Analyzer, text string, lang Lang) []string {
	var out []string
	a.Analyze(text, lang, func(t Token) { out = append(out, t.Term) })
	return out
}

func TestTokenization(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"don't stop", []string{"dont", "stop"}},
		{"it’s fine", []string{"its", "fine"}},
		{"ZFS pool: zpool-scrub 2024", []string{"zfs", "pool", "zpool", "scrub", "2024"}},
		{"'quoted'", []string{"quoted"}},
		{"[[Wiki Link|alias]] #tag/nested", []string{"wiki", "link", "alias", "tag", "nested"}},
		{"x" + strings.Repeat("b", 200) + " y", []string{"y"}}, // an over-long run is dropped
		{"", nil},
		{"  ...  ", nil},
	}
	a := New()
	for _, tt := range tests {
		if got := terms(a, tt.in, None); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Analyze(%q, None) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	a := New()
	got := a.AppendTerms(nil, "The runners were running quickly through the gardens")
	want := []string{"runner", "run", "quick", "garden"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// Memoised path gives the same answer.
	if again := a.AppendTerms(nil, "running gardens"); !reflect.DeepEqual(again, []string{"run", "garden"}) {
		t.Fatalf("memo: got %q", again)
	}
	var viaTerms []string
	a.Terms("running gardens", func(s string) { viaTerms = append(viaTerms, s) })
	if !reflect.DeepEqual(viaTerms, []string{"run", "garden"}) {
		t.Fatalf("Terms: got %q", viaTerms)
	}
}

// TestAccentFolding: folded and unfolded spellings analyse to the same
// term, in both directions, for every language.
func TestAccentFolding(t *testing.T) {
	pairs := []struct{ a, b string }{
		{"café", "cafe"}, {"naïve", "naive"}, {"München", "munchen"}, {"Straße", "strasse"},
		{"STRASSE", "straße"}, {"Ærøskøbing", "aeroskobing"}, {"œuvre", "oeuvre"}, {"Łódź", "lodz"},
		{"Đorđević", "dordevic"}, {"Þingvellir", "thingvellir"}, {"Iı", "ii"}, {"crème brûlée", "creme brulee"},
		{"Việt Nam", "viet nam"}, {"Ångström", "angstrom"}, {"señor", "senor"}, {"Zürich", "zurich"},
		{"ἀθῆναι", "αθηναι"}, {"Ελλάδα", "ελλαδα"}, {"ΟΔΟΣ", "οδός"}, {"ёлка", "елка"}, {"Ёж", "еж"},
		{"e\u0301te\u0301", "ete"}, // decomposed input
	}
	a := New()
	for _, p := range pairs {
		for _, l := range []Lang{English, None} {
			x, y := terms(a, p.a, l), terms(a, p.b, l)
			if len(x) == 0 || !reflect.DeepEqual(x, y) {
				t.Errorf("%s: %q → %q but %q → %q", l, p.a, x, p.b, y)
			}
		}
	}
	// The example: each unaccented query word finds the note.
	note := map[string]bool{}
	for _, s := range terms(a, "café naïve München Straße", English) {
		note[s] = true
	}
	for _, q := range []string{"cafe", "naive", "munchen", "strasse", "Cafe", "CAFÉ", "Munchen"} {
		ts := terms(a, q, English)
		if len(ts) != 1 || !note[ts[0]] {
			t.Errorf("query %q → %q, not in the note's terms %v", q, ts, note)
		}
	}
}

// TestFoldKeepsOtherScripts: only Latin and Greek marks (and ё) fold.
func TestFoldKeepsOtherScripts(t *testing.T) {
	a := New()
	for in, want := range map[string][]string{
		"がぎぐ":     {"がぎ", "ぎぐ"}, // kana voicing marks stay (か ≠ が)
		"か\u3099": {"が"},        // a separate voicing mark composes
		"한국어":     {"한국", "국어"}, // Hangul is not decomposed
		"йод":     {"йод"},      // Cyrillic й keeps its breve
		"हिन्दी":  {"हिन्दी"},   // Devanagari keeps its vowel signs
		"ไทย":     {"ไทย"},
	} {
		if got := terms(a, in, None); !reflect.DeepEqual(got, want) {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
	if x, y := terms(a, "が", None), terms(a, "か", None); reflect.DeepEqual(x, y) {
		t.Errorf("が and か both → %q", x)
	}
}

func TestNFKC(t *testing.T) {
	a := New()
	for in, want := range map[string][]string{
		"Ｆｕｌｌ ｗｉｄｔｈ ２０２４": {"full", "width", "2024"},
		"ﬁnance ﬂow": {"finance", "flow"},
		"x² H₂O":     {"x2", "h2o"},
		"ⅻ Ⅻ":        {"xii", "xii"},
		"ｶﾀｶﾅ":       {"カタ", "タカ", "カナ"},
		"ｶﾞｷﾞ":       {"ガギ"},
		"ﾗｰﾒﾝ":       {"ラー", "ーメ", "メン"},
		"㈱ ① ②":      {"1", "2"}, // circled digits are numbers, ㈱ a symbol
		"\u2F00":     nil,        // a Kangxi radical is a symbol
		"\uF900":     {"豈"},      // a compatibility ideograph is its unified form
	} {
		if got := terms(a, in, None); !reflect.DeepEqual(got, want) {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

func TestCJKBigrams(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"東京タワー", []string{"東京", "京タ", "タワ", "ワー"}},
		{"中华人民共和国", []string{"中华", "华人", "人民", "民共", "共和", "和国"}},
		{"我爱北京。天安门", []string{"我爱", "爱北", "北京", "天安", "安门"}},
		{"ひらがなとカタカナ", []string{"ひら", "らが", "がな", "なと", "とカ", "カタ", "タカ", "カナ"}},
		{"ラーメンを食べる", []string{"ラー", "ーメ", "メン", "ンを", "を食", "食べ", "べる"}},
		{"대한민국 서울", []string{"대한", "한민", "민국", "서울"}},
		{"나 는", []string{"나", "는"}},
		{"猫", []string{"猫"}},
		{"猫 犬", []string{"猫", "犬"}},
		{"iPhone15を買った", []string{"iphone15", "を買", "買っ", "った"}},
		{"東京2024年に", []string{"東京", "2024", "年に"}},
		{"ZFSのプール", []string{"zfs", "のプ", "プー", "ール"}},
		{"日々", []string{"日々"}},
		{"東・京", []string{"東", "京"}}, // the middle dot is punctuation
	}
	a := New()
	for _, tt := range tests {
		for _, l := range []Lang{English, None} {
			if got := terms(a, tt.in, l); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s: %q → %q, want %q", l, tt.in, got, tt.want)
			}
		}
	}
}

// tokens returns the tokens of text analysed as lang.
func tokens(a *Analyzer, text string, lang Lang) []Token {
	var out []Token
	a.Analyze(text, lang, func(t Token) { out = append(out, t) })
	return out
}

func TestPositionsAndOffsets(t *testing.T) {
	a := New()
	text := "The cat sat on the mat, 東京タワー! ok " + strings.Repeat("z", 80) + " done"
	got := tokens(a, text, English)
	type tp struct {
		term string
		pos  int
		src  string
	}
	want := []tp{
		{"cat", 1, "cat"}, {"sat", 2, "sat"}, {"mat", 5, "mat"},
		{"東京", 6, "東京"}, {"京タ", 7, "京タ"}, {"タワ", 8, "タワ"}, {"ワー", 9, "ワー"},
		{"ok", 10, "ok"}, {"done", 12, "done"}, // the over-long token took position 11
	}
	var have []tp
	for _, tk := range got {
		have = append(have, tp{tk.Term, tk.Pos, text[tk.Start:tk.End]})
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("got  %v\nwant %v", have, want)
	}
	// A phrase across a stop word lines up with the same phrase in a query.
	doc := tokens(a, "notes about the design of the cache", English)
	q := tokens(a, "design of the cache", English)
	if len(q) != 2 || len(doc) != 3 {
		t.Fatalf("doc %v query %v", doc, q)
	}
	if dq, dd := q[1].Pos-q[0].Pos, doc[2].Pos-doc[1].Pos; dq != dd || dq != 3 {
		t.Fatalf("gap in query %d, in doc %d, want 3", dq, dd)
	}
	// Offsets of a word with an inner apostrophe and of decomposed text.
	for _, c := range []struct{ text, src string }{{"I don't know", "don't"}, {"e\u0301te\u0301!", "e\u0301te\u0301"}, {"«Straße»", "Straße"}} {
		ts := tokens(a, c.text, None)
		found := false
		for _, tk := range ts {
			found = found || c.text[tk.Start:tk.End] == c.src
		}
		if !found {
			t.Errorf("%q: no token spans %q: %v", c.text, c.src, ts)
		}
	}
}

func TestASCIIAllocationFree(t *testing.T) {
	a := New()
	text := "The quick brown fox jumps over the lazy dog; running gardens, 2024 notes."
	a.Terms(text, func(string) {}) // learn the words
	n := testing.AllocsPerRun(100, func() {
		a.Analyze(text, English, func(Token) {})
		a.Terms(text, func(string) {})
	})
	if n != 0 {
		t.Fatalf("%v allocations per run for known ASCII words", n)
	}
}

func BenchmarkTerms(b *testing.B) {
	text := "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities."
	a := New()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		a.Terms(text, func(string) {})
	}
}

// BenchmarkTermsParagraph analyses an English paragraph of note text with
// Markdown punctuation, numbers and code words.
func BenchmarkTermsParagraph(b *testing.B) {
	text := benchParagraph
	a := New()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a.Terms(text, func(string) {})
	}
}

const benchParagraph = `## Backups

The ZFS pool on the homelab server takes hourly snapshots; weekly snapshots are kept for 12 weeks and
monthly ones for a year. Run ` + "`zpool scrub tank`" + ` every Sunday (see [[Storage Plan|the storage plan]]) and check
the SMART counters of every disk. If a drive reports reallocated sectors, replace it before the next scrub:
resilvering a 4 TB disk took about nine hours last time, during which the pool was degraded. Don't forget to
update the inventory note and the #homelab tag on the replaced drive's page. Offsite copies go to the
cloud bucket through restic, encrypted, with a retention policy of 30 daily, 8 weekly and 24 monthly snapshots.`

// checkTokens verifies the offset and position invariants of text's tokens:
// ranges within bounds, on rune boundaries, non-empty and in order;
// positions increasing; and the source of a word token normalising to the
// term's unstemmed form (None analysis: the term itself).
func checkTokens(t *testing.T, a *Analyzer, text string) {
	t.Helper()
	for _, l := range []Lang{English, None, French, Russian} {
		prevStart, prevPos := -1, -1
		a.Analyze(text, l, func(tk Token) {
			if tk.Start < 0 || tk.End > len(text) || tk.Start >= tk.End {
				t.Fatalf("%s %q: token %+v out of bounds", l, text, tk)
			}
			if !utf8.RuneStart(text[tk.Start]) || (tk.End < len(text) && !utf8.RuneStart(text[tk.End])) {
				t.Fatalf("%s %q: token %+v splits a rune", l, text, tk)
			}
			if tk.Start <= prevStart || tk.Pos <= prevPos || tk.Term == "" {
				t.Fatalf("%s %q: token %+v not after start %d pos %d", l, text, tk, prevStart, prevPos)
			}
			prevStart, prevPos = tk.Start, tk.Pos
			if l != None {
				return
			}
			// The source alone analyses to the same term (a bigram's
			// source holds exactly its two characters).
			src := text[tk.Start:tk.End]
			var again []string
			a.Analyze(src, None, func(u Token) { again = append(again, u.Term) })
			if len(again) != 1 || again[0] != tk.Term {
				t.Fatalf("%q: token %+v: its source %q analyses to %q", text, tk, src, again)
			}
		})
	}
}

func TestOffsetsProperty(t *testing.T) {
	frags := []string{"Café", " ", "naïve", "München", "STRASSE", "don't", "it’s", "東京タワー", "。", "ｶﾞｷﾞ", "한국어",
		"ёлка", "ﬁ", "Ｆｕｌｌ", "x²", "e\u0301", "\u3099", "か", "ー", "123", "#tag", "[[a|b]]", "\n", "—", "🙂",
		"ไทย", "हिन्दी", "'", "\u0301", "a", "Ω", "ά", strings.Repeat("q", 70), "\uF900", "々", "〇"}
	rng := rand.New(rand.NewPCG(3, 4))
	a := New()
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		checkTokens(t, a, b.String())
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"", "Café naïve München Straße", "東京タワー visit", "ｶﾞｷﾞ", "か\u3099\u3099", "don't it’s",
		"e\u0301\u0301", "\u0301abc", "한국어 나", "ёлка", "x² ½ ⅻ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		a := New() // a shared one would hold every random word the fuzzer makes up
		checkTokens(t, a, s)
		a.Query(s, Langs()...)
		Detect(s)
	})
}

// TestHotCacheGivesTheMemosTerms analyses many more distinct words than the
// hot cache has slots, in every language and mixed with CJK grams, so
// slots are taken over again and again, and checks every term against the
// uncached analysis: a slot answers only for its own token and kind.
func TestHotCacheGivesTheMemosTerms(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	letters := []string{"a", "e", "s", "t", "ing", "ed", "é", "ö", "ж", "ø"}
	a := New()
	for range 200 {
		var words []string
		for range 500 {
			var w strings.Builder
			for range 1 + r.IntN(4) {
				w.WriteString(letters[r.IntN(len(letters))])
			}
			words = append(words, w.String())
		}
		text := strings.Join(words, " ") + " 日本語の文章"
		lang := Lang(r.IntN(int(numLangs)))
		var want []string
		for _, w := range words {
			if term := analyzeWord(lang, w); term != "" {
				want = append(want, term)
			}
		}
		want = append(want, "日本", "本語", "語の", "の文", "文章")
		if got := terms(a, text, lang); !reflect.DeepEqual(got, want) {
			t.Fatalf("Analyze(%q, %v) = %q, want %q", text, lang, got, want)
		}
	}
}
