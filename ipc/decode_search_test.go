package ipc

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// searchFrags are pieces of the strings in a random answer: what JSON
// escapes (quotes, backslashes, control characters, <>&, U+2028),
// multi-byte and invalid UTF-8.
var searchFrags = []string{"note", " ", "Settings > Filters", "a & b", "<tag>", `"quoted"`, `back\slash`, "\n", "\t", "\x01",
	"café", "東京", "🙂", "\u2028", "\xff", "e\u0301", "/", "\\u00e9"}

func randString(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(6) {
		b.WriteString(searchFrags[rng.IntN(len(searchFrags))])
	}
	return b.String()
}

func randSpans(rng *rand.Rand) [][2]int {
	if rng.IntN(3) == 0 {
		return nil
	}
	out := make([][2]int, rng.IntN(4))
	for i := range out {
		out[i] = [2]int{rng.IntN(1000) - 5, rng.IntN(1 << 20)}
	}
	return out
}

func randFloat(rng *rand.Rand) float64 {
	return []float64{0, 1, 1.075, 0.5441837858829447, 1e-7, 3.2e21, -0.25, math.SmallestNonzeroFloat64, rng.Float64() * 2}[rng.IntN(9)]
}

func randResponse(rng *rand.Rand) SearchResponse {
	r := SearchResponse{Query: randString(rng), TookMS: randFloat(rng), Grounded: rng.IntN(2) == 0, EmbedMS: randFloat(rng)}
	if rng.IntN(4) == 0 {
		r.Suggestions = []string{randString(rng), randString(rng)}
	}
	if rng.IntN(4) == 0 {
		r.Degraded = []string{"vector"}
	}
	if rng.IntN(8) > 0 {
		r.Results = []Result{}
	}
	for range rng.IntN(5) {
		x := Result{ID: randString(rng), Vault: randString(rng), Path: randString(rng), AbsPath: randString(rng),
			Title: randString(rng), LineStart: rng.IntN(500), LineEnd: rng.IntN(500), Heading: randString(rng),
			Score: randFloat(rng), Text: randString(rng), Page: rng.IntN(3), Stale: rng.IntN(2) == 0, Matches: randSpans(rng)}
		if rng.IntN(2) == 0 {
			x.Headings = []string{randString(rng), randString(rng)}
		}
		if rng.IntN(3) > 0 {
			x.Parent = &Parent{LineStart: rng.IntN(9), LineEnd: rng.IntN(9), Heading: randString(rng), Text: randString(rng)}
		}
		if rng.IntN(3) > 0 {
			x.Snippet = &Snippet{Text: randString(rng), LineStart: rng.IntN(9), LineEnd: rng.IntN(9), Matches: randSpans(rng)}
		}
		r.Results = append(r.Results, x)
	}
	return r
}

// decodeBoth decodes b with decodeSearch (falling back as the client
// does) and with json.Unmarshal, and fails when they disagree.
func decodeBoth(t *testing.T, b []byte) (fast bool) {
	t.Helper()
	var want, got SearchResponse
	werr := json.Unmarshal(b, &want)
	fast = decodeSearch(b, &got)
	if !fast {
		got = SearchResponse{}
		gerr := json.Unmarshal(b, &got)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: fallback error %v, json %v", b, gerr, werr)
		}
		return false
	}
	if werr != nil {
		t.Fatalf("%q: decodeSearch took what json.Unmarshal refuses (%v): %+v", b, werr, got)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\ndecodeSearch %+v\njson         %+v", b, got, want)
	}
	return true
}

// decodeSearch gives what json.Unmarshal gives for every answer the daemon
// may send, and declines (the client then uses json.Unmarshal) whatever it
// does not handle; answers cut or altered anywhere are decoded as
// json.Unmarshal decodes them, or declined.
func TestDecodeSearchIsUnmarshal(t *testing.T) {
	const alter = `{}[],:"\ 0123456789.-eE+nultrfa`
	rng := rand.New(rand.NewPCG(3, 4))
	fast := 0
	for range 3000 {
		b, err := json.Marshal(randResponse(rng))
		if err != nil {
			t.Fatal(err)
		}
		if decodeBoth(t, b) {
			fast++
		}
		// Altered: a byte changed, removed or inserted, or the end cut.
		for range 5 {
			m := []byte(string(b))
			i := rng.IntN(len(m))
			switch rng.IntN(4) {
			case 0:
				m[i] = alter[rng.IntN(len(alter))]
			case 1:
				m = append(m[:i], m[i+1:]...)
			case 2:
				m = append(m[:i], append([]byte{alter[rng.IntN(len(alter))]}, m[i:]...)...)
			case 3:
				m = m[:i]
			}
			decodeBoth(t, m)
		}
	}
	if fast < 2000 {
		t.Errorf("decodeSearch handled %d of 3000 answers", fast)
	}
	// What the daemon never sends goes to encoding/json.
	for _, s := range []string{`{"query":"q","results":[{"id":"1","explain":{"fused":1}}]}`, `{"Query":"q"}`,
		`{"query":"q","query":"r"}`, `{"query":"\ud83d\ude00"}`, `{"results":[{"matches":[[1,2,3]]}]}`, `{"query":null}`} {
		if decodeBoth(t, []byte(s)) {
			t.Errorf("%s: decoded by decodeSearch", s)
		}
	}
}

func FuzzDecodeSearchAnswer(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		b, _ := json.Marshal(randResponse(rng))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { decodeBoth(t, b) })
}

// benchAnswer is a default search's answer: 10 results with text,
// parent, snippet and matches, about 16 KB of JSON.
func benchAnswer() *SearchResponse {
	resp := &SearchResponse{Query: "plugin settings", Grounded: true, TookMS: 1.234}
	text := strings.Repeat("The community plugin adds a settings tab > Appearance & more. ", 10)
	for i := range 10 {
		resp.Results = append(resp.Results, Result{ID: "7af297065835c389.2", Vault: "eval",
			Path: "02 - Community Expansions/Plugins/obsidian-style-settings.md", AbsPath: "/home/user/vaults/hub/02 - Community Expansions/Plugins/obsidian-style-settings.md",
			Title: "obsidian-style-settings", LineStart: 39 + i, LineEnd: 47, Heading: "Settings > Filters", Headings: []string{"Settings", "Filters"},
			Score: 1.0751234, Text: text, Parent: &Parent{LineStart: 37, LineEnd: 49, Heading: "Settings > Filters"},
			Snippet: &Snippet{Text: text[:240], LineStart: 40, LineEnd: 41, Matches: [][2]int{{1, 8}, {24, 32}, {216, 223}}},
			Matches: [][2]int{{1, 8}, {24, 32}, {216, 223}, {301, 308}, {420, 428}, {500, 507}}})
	}
	return resp
}

// BenchmarkDecodeSearch decodes a default search's answer with
// decodeSearch and with json.Unmarshal, in the same run.
func BenchmarkDecodeSearch(b *testing.B) {
	data, err := json.Marshal(benchAnswer())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decodeSearch", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var r SearchResponse
			if !decodeSearch(data, &r) {
				b.Fatal("declined")
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var r SearchResponse
			if err := json.Unmarshal(data, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}
