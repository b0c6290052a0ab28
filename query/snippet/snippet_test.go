package snippet

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/index/analyze"
)

// query analyses q as English into weight-1 terms.
func query(an *analyze.Analyzer, q string) []Term {
	return Terms(an.Query(q, analyze.English))
}

// highlighted renders the window with matches in [brackets]; overlapping
// matches (CJK bigrams) share one bracket.
func highlighted(w Window) string {
	var b strings.Builder
	last, i := 0, 0
	for i < len(w.Matches) {
		s, e := w.Matches[i].WinStart, w.Matches[i].WinEnd
		for i++; i < len(w.Matches) && w.Matches[i].WinStart < e; i++ {
			e = max(e, w.Matches[i].WinEnd)
		}
		b.WriteString(w.Text[last:s] + "[" + w.Text[s:e] + "]")
		last = e
	}
	b.WriteString(w.Text[last:])
	return b.String()
}

func TestBest(t *testing.T) {
	an := analyze.New()
	filler := strings.Repeat("Nothing relevant happens in this sentence at all. ", 6)
	tests := []struct {
		name, text, q string
		opt           Options
		want          string
		lines         [2]int
	}{
		{
			name: "the line with the match, not the start",
			text: filler + "\nA quokka smiled at the camera near the lighthouse.\n" + filler,
			q:    "quokka", opt: Options{Width: 80},
			want: "A [quokka] smiled at the camera near the lighthouse.\nNothing relevant happens in", lines: [2]int{2, 3},
		},
		{
			name: "the cluster with more distinct terms wins",
			text: "Espresso is strong. " + filler + "Dial in espresso: grind finer when the shot is sour. " + filler,
			q:    "espresso sour grind", opt: Options{Width: 70},
			want: "Dial in [espresso]: [grind] finer when the shot is [sour]. Nothing relevant", lines: [2]int{1, 1},
		},
		{
			name: "folded and stemmed matches",
			text: filler + "We met at the Café in München and were running late.",
			q:    "cafe munchen run", opt: Options{Width: 60},
			want: "We met at the [Café] in [München] and were [running] late.", lines: [2]int{1, 1},
		},
		{
			name: "no match: the start of the text, whole words",
			text: "Alpha beta gamma delta epsilon zeta eta theta iota kappa",
			q:    "omega", opt: Options{Width: 24},
			want: "Alpha beta gamma delta", lines: [2]int{1, 1},
		},
		{
			name: "CJK bigrams map to characters",
			text: "今日は晴れ。東京タワーに行きました。とても高かったです。",
			q:    "東京タワー", opt: Options{Width: 36},
			want: "[東京タワー]に行きました。", lines: [2]int{1, 1},
		},
		{
			name: "CJK measured in characters",
			text: "今日は晴れ。東京タワーに行きました。とても高かったです。",
			q:    "東京タワー", opt: Options{Width: 16, Runes: true},
			want: "[東京タワー]に行きました。とても高", lines: [2]int{1, 1},
		},
		{
			name: "a very long line",
			text: strings.Repeat("lorem ipsum dolor ", 200) + "needle in the haystack " + strings.Repeat("sit amet ", 200),
			q:    "needle haystack", opt: Options{Width: 40},
			want: "dolor [needle] in the [haystack] sit amet", lines: [2]int{1, 1},
		},
		{
			name: "ties go to the earlier window",
			text: "first kiwi here. " + filler + "second kiwi there.",
			q:    "kiwi", opt: Options{Width: 30},
			want: "first [kiwi] here. Nothing", lines: [2]int{1, 1},
		},
		{
			name: "among equal windows, one that starts a line",
			text: strings.Repeat("filler words ", 10) + "a kiwi mid line " + strings.Repeat("more filler ", 10) + "\nkiwi starts this line.",
			q:    "kiwi", opt: Options{Width: 30},
			want: "[kiwi] starts this line.", lines: [2]int{2, 2},
		},
		{
			name: "empty query",
			text: "Some text.",
			q:    "the", opt: Options{},
			want: "Some text.", lines: [2]int{1, 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := Best(an, tt.text, query(an, tt.q), tt.opt)
			if got := highlighted(w); got != tt.want {
				t.Errorf("window %q\n        want %q", got, tt.want)
			}
			if [2]int{w.LineStart, w.LineEnd} != tt.lines {
				t.Errorf("lines %d-%d, want %d-%d", w.LineStart, w.LineEnd, tt.lines[0], tt.lines[1])
			}
			checkWindow(t, an, tt.text, query(an, tt.q), tt.opt, w)
		})
	}
}

func TestTermsDeduplicates(t *testing.T) {
	an := analyze.New()
	ts := Terms(an.Query("run running ran", analyze.English))
	if len(ts) != 2 || !slices.Equal(ts[0].Variants, []string{"run"}) || !slices.Equal(ts[1].Variants, []string{"ran"}) {
		t.Fatalf("terms %+v", ts)
	}
}

func TestWeights(t *testing.T) {
	an := analyze.New()
	text := "common common common. " + strings.Repeat("x ", 40) + "rare word."
	ts := query(an, "common rare")
	ts[1].Weight = 5
	w := Best(an, text, ts, Options{Width: 20})
	if !strings.Contains(w.Text, "rare") || w.Score != 5 {
		t.Fatalf("window %q score %v: the heavier term should win", w.Text, w.Score)
	}
}

// checkWindow verifies a window's invariants: offsets inside the text on
// rune boundaries; the width respected (unless one match alone is wider);
// every match inside the window, slicing the text to a token that analyses
// to one of its term's variants; the score is that of its distinct terms
// and no window of the same width scores more.
func checkWindow(t *testing.T, an *analyze.Analyzer, text string, terms []Term, opt Options, w Window) {
	t.Helper()
	if w.Start < 0 || w.End > len(text) || w.Start > w.End || w.Text != text[w.Start:w.End] {
		t.Fatalf("window [%d,%d) of %d bytes", w.Start, w.End, len(text))
	}
	if w.Start < len(text) && !utf8.RuneStart(text[w.Start]) || w.End < len(text) && !utf8.RuneStart(text[w.End]) {
		t.Fatalf("window [%d,%d) splits a rune", w.Start, w.End)
	}
	width := opt.Width
	if width == 0 {
		width = DefaultWidth
	}
	width = max(width, minWidth)
	m := newMeasure(text, opt.Runes)
	if d := m.dist(w.Start, w.End); d > width && !(len(w.Matches) > 0 && m.dist(w.Matches[0].Start, w.Matches[len(w.Matches)-1].End) >= d) {
		t.Fatalf("window of width %d > %d: %q", d, width, w.Text)
	}
	seen := map[int]bool{}
	score := 0.0
	prev := -1
	for _, mt := range w.Matches {
		if mt.Start < w.Start || mt.End > w.End || mt.Start >= mt.End || mt.Start < prev {
			t.Fatalf("match %+v outside window [%d,%d) or out of order", mt, w.Start, w.End)
		}
		prev = mt.Start
		if w.Text[mt.WinStart:mt.WinEnd] != text[mt.Start:mt.End] {
			t.Fatalf("match %+v: window offsets disagree", mt)
		}
		var got []string
		an.Analyze(text[mt.Start:mt.End], opt.Lang, func(tk analyze.Token) { got = append(got, tk.Term) })
		if len(got) != 1 || !slices.Contains(terms[mt.Term].Variants, got[0]) {
			t.Fatalf("match %+v: source %q analyses to %q, not a variant of %q", mt, text[mt.Start:mt.End], got, terms[mt.Term].Variants)
		}
		if !seen[mt.Term] {
			seen[mt.Term] = true
			score += wt(terms[mt.Term])
		}
	}
	if score < w.Score-1e-9 {
		t.Fatalf("window holds terms worth %v, reports %v", score, w.Score)
	}
	// Brute force: no window of the width covers more.
	all := analysedMatches(an, text, terms, opt.Lang)
	best := 0.0
	for i := range all {
		s := 0.0
		in := map[int]bool{}
		for j := i; j < len(all) && (j == i || m.dist(all[i].Start, all[j].End) <= width); j++ {
			if !in[all[j].Term] {
				in[all[j].Term] = true
				s += wt(terms[all[j].Term])
			}
		}
		best = max(best, s)
	}
	if w.Score != best {
		t.Fatalf("window score %v, best possible %v: %q", w.Score, best, w.Text)
	}
	if len(all) == 0 && (w.Score != 0 || len(w.Matches) != 0) {
		t.Fatalf("no match but window %+v", w)
	}
}

func wt(t Term) float64 {
	if t.Weight > 0 {
		return t.Weight
	}
	return 1
}

var frags = []string{"quokka", "Café", "cafe", "München", "running", "ran", "the", "and", " ", " ", "\n", ". ",
	"東京タワー", "東京", "。", "한국어", "ｶﾞｷﾞ", "🙂", "don't", "x²", strings.Repeat("long", 20), "e\u0301", "#tag", "[[link]]"}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(frags[rng.IntN(len(frags))])
		if rng.IntN(3) > 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func TestRandomWindows(t *testing.T) {
	an := analyze.New()
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		text := randomText(rng, 1+rng.IntN(60))
		q := randomText(rng, 1+rng.IntN(4))
		opt := Options{Width: rng.IntN(120), Runes: rng.IntN(3) == 0}
		terms := query(an, q)
		for i := range terms {
			terms[i].Weight = float64(rng.IntN(4))
		}
		w := Best(an, text, terms, opt)
		checkWindow(t, an, text, terms, opt, w)
	}
}

// All gives what Analyze does; BestOf over All's matches is Best, and
// leaves the matches as All gave them (a caller uses both).
func TestBestOfIsBest(t *testing.T) {
	an := analyze.New()
	rng := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		text := randomText(rng, 1+rng.IntN(60))
		terms := query(an, randomText(rng, 1+rng.IntN(4)))
		opt := Options{Width: rng.IntN(120), Runes: rng.IntN(3) == 0}
		all := All(an, text, terms, opt.Lang)
		if want := analysedMatches(an, text, terms, opt.Lang); !slices.Equal(all, want) {
			t.Fatalf("text %q terms %v: All gave %v, Analyze %v", text, terms, all, want)
		}
		kept := slices.Clone(all)
		want, got := Best(an, text, terms, opt), BestOf(text, all, terms, opt)
		if got.Text != want.Text || got.Start != want.Start || got.LineStart != want.LineStart ||
			got.LineEnd != want.LineEnd || got.Score != want.Score || !slices.Equal(got.Matches, want.Matches) {
			t.Fatalf("text %q terms %v: BestOf %+v, Best %+v", text, terms, got, want)
		}
		if !slices.Equal(all, kept) {
			t.Fatalf("text %q: BestOf changed the matches it was given", text)
		}
	}
}

// In ASCII text a character is a byte: measuring in runes (which then
// skips the rune index) gives the window measuring in bytes gives.
func TestASCIIRunesAreBytes(t *testing.T) {
	an := analyze.New()
	rng := rand.New(rand.NewPCG(11, 12))
	n := 0
	for range 4000 {
		text := randomText(rng, 1+rng.IntN(12))
		if !ascii(text) {
			continue
		}
		n++
		terms := query(an, randomText(rng, 1+rng.IntN(4)))
		width := rng.IntN(120)
		b, r := Best(an, text, terms, Options{Width: width}), Best(an, text, terms, Options{Width: width, Runes: true})
		if b.Start != r.Start || b.End != r.End || !slices.Equal(b.Matches, r.Matches) {
			t.Fatalf("text %q width %d: bytes %+v, runes %+v", text, width, b, r)
		}
	}
	if n < 100 {
		t.Fatalf("only %d ASCII texts drawn", n)
	}
}

func FuzzBest(f *testing.F) {
	f.Add("A quokka smiled at the camera.", "quokka camera", uint8(40), false)
	f.Add("東京タワーに行きました。", "東京", uint8(10), true)
	f.Add("Café München", "cafe", uint8(0), false)
	an := analyze.New()
	f.Fuzz(func(t *testing.T, text, q string, width uint8, runes bool) {
		if !utf8.ValidString(text) || !utf8.ValidString(q) {
			return
		}
		opt := Options{Width: int(width), Runes: runes}
		terms := query(an, q)
		checkWindow(t, an, text, terms, opt, Best(an, text, terms, opt))
	})
}

// benchChunk is a 1,200-byte chunk whose best window is at its end.
func benchChunk() string {
	var sb strings.Builder
	for sb.Len() < 1150 {
		sb.WriteString("The backup job runs every night and keeps thirty snapshots of the pool. ")
	}
	sb.WriteString("Restic prunes old snapshots weekly.")
	return sb.String()
}

// BenchmarkBest finds the window in a 1,200-byte chunk, as for every
// returned result, for a few keywords and for a question of a dozen words,
// as SciFact's are (their first letters cover much of the alphabet, so the
// leads' second byte matters). BenchmarkAnalyzeChunk, the analysis alone,
// is its peer: the window costs little more than analysing the text.
func BenchmarkBest(b *testing.B) {
	an := analyze.New()
	text := benchChunk()
	for _, q := range []struct{ name, text string }{
		{"keywords", "restic prune snapshots"},
		{"question", "does pruning old snapshots with a retention policy reduce the repository size on disk"},
	} {
		b.Run(q.name, func(b *testing.B) {
			terms := query(an, q.text)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				Best(an, text, terms, Options{Width: 200})
			}
		})
	}
}

func BenchmarkAnalyzeChunk(b *testing.B) {
	an := analyze.New()
	text := benchChunk()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		an.Analyze(text, analyze.English, func(analyze.Token) {})
	}
}

// analysedMatches is All by way of Analyze: every token of text whose term
// is a variant of a query term (the first such term), for the tests to
// check All and the windows against.
func analysedMatches(an *analyze.Analyzer, text string, terms []Term, lang analyze.Lang) []Match {
	var out []Match
	an.Analyze(text, lang, func(t analyze.Token) {
		for k, qt := range terms {
			if slices.Contains(qt.Variants, t.Term) {
				out = append(out, Match{Term: k, Start: t.Start, End: t.End, WinStart: t.Start, WinEnd: t.End})
				return
			}
		}
	})
	return out
}
