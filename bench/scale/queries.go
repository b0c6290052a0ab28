package scale

import (
	"bufio"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// stopWords are left out of generated queries.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`about above after again against also among because been before being below
between both cannot could does doing down during each from further have having here into itself just more most
other ought over same should some such than that their theirs them then there these they this those through
under until very were what when where which while whom will with would your yours`) {
		stopWords[w] = true
	}
}

// Queries draws n queries from the notes of vault, deterministic for a
// seed: each takes one to three consecutive words (letters only, four or
// more of them, no stop words) from a body line of a note picked at
// random. Every engine is asked the same queries.
func Queries(vault string, n int, seed uint64) ([]string, error) {
	var files []string
	err := filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fs.ErrNotExist
	}
	r := rand.New(rand.NewPCG(seed, 7))
	seen := map[string]bool{}
	var out []string
	for tries := 0; len(out) < n && tries < 50*n; tries++ {
		words, err := bodyWords(files[r.IntN(len(files))])
		if err != nil {
			return nil, err
		}
		if len(words) == 0 {
			continue
		}
		size := []int{1, 2, 2, 3}[r.IntN(4)]
		start := r.IntN(len(words))
		var q []string
		for _, w := range words[start:min(start+size, len(words))] {
			if w == "" {
				break
			}
			q = append(q, w)
		}
		if len(q) == 0 || seen[strings.Join(q, " ")] {
			continue
		}
		seen[strings.Join(q, " ")] = true
		out = append(out, strings.Join(q, " "))
	}
	return out, nil
}

// bodyWords returns the words of a note's body lines (no frontmatter,
// headings or links), lower-cased, with "" where a word was dropped so
// that queries take only adjacent words.
func bodyWords(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var out []string
	inFM := false
	for n := 0; sc.Scan(); n++ {
		line := sc.Text()
		if n == 0 && line == "---" {
			inFM = true
			continue
		}
		if inFM {
			inFM = line != "---"
			continue
		}
		if strings.HasPrefix(line, "#") || strings.Contains(line, "[[") {
			continue
		}
		for _, w := range strings.Fields(line) {
			w = strings.ToLower(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }))
			if len(w) < 4 || stopWords[w] || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) || r > unicode.MaxASCII }) >= 0 {
				w = ""
			}
			out = append(out, w)
		}
		out = append(out, "")
	}
	return out, sc.Err()
}
