package vaultgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Version changes whenever the generator's output does, so cached vaults
// of an older generator are made again.
const Version = 1

// ManifestName is the file, at a generated vault's root, that records how
// it was made; it is written last, so a vault without it is incomplete.
const ManifestName = ".vaultgen.json"

// Options say what to generate.
type Options struct {
	Notes int    // how many notes
	Seed  uint64 // the same seed gives the same vault
	// MeanBytes is the mean note size aimed at (2,500 bytes by default,
	// obsidian-hub's size with the frontmatter ragd's notes usually carry).
	MeanBytes int
}

// Manifest describes a generated vault.
type Manifest struct {
	Version  int    `json:"version"`
	Notes    int    `json:"notes"`
	Seed     uint64 `json:"seed"`
	Folders  int    `json:"folders"`
	Links    int64  `json:"links"`
	Bytes    int64  `json:"bytes"`
	Source   string `json:"source,omitempty"` // what the text was drawn from, for the record
	MeanSize int    `json:"mean_bytes"`
}

// ReadManifest returns a generated vault's manifest, or an error when dir
// is not a complete generated vault.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	return &m, nil
}

// Generate writes a vault of opt.Notes notes into dst, which must not
// exist: into a temporary sibling first, renamed when complete.
func Generate(dst string, src *Source, opt Options) (*Manifest, error) {
	if opt.Notes < 1 {
		return nil, errors.New("vaultgen: at least one note")
	}
	if opt.MeanBytes <= 0 {
		opt.MeanBytes = 2500
	}
	if _, err := os.Stat(dst); err == nil {
		return nil, fmt.Errorf("vaultgen: %s exists", dst)
	}
	tmp := dst + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, err
	}
	g := newGen(src, opt)
	for _, f := range g.folders {
		if err := os.MkdirAll(filepath.Join(tmp, filepath.FromSlash(f)), 0o755); err != nil {
			return nil, err
		}
	}
	var (
		bytes, links atomic.Int64
		firstErr     error
		once         sync.Once
		wg           sync.WaitGroup
	)
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < opt.Notes; i += workers {
				rel, text, n := g.note(i)
				if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(rel)), []byte(text), 0o644); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				bytes.Add(int64(len(text)))
				links.Add(int64(n))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	m := &Manifest{Version: Version, Notes: opt.Notes, Seed: opt.Seed, Folders: len(g.folders),
		Links: links.Load(), Bytes: bytes.Load(), MeanSize: opt.MeanBytes}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, ManifestName), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return m, os.Rename(tmp, dst)
}

// gen holds what every note may refer to: folders and titles.
type gen struct {
	src     *Source
	opt     Options
	folders []string // slash paths; "" is the root
	titles  []string // per note, unique regardless of case
	where   []int32  // per note, its folder
}

func newGen(src *Source, opt Options) *gen {
	g := &gen{src: src, opt: opt}
	r := rand.New(rand.NewPCG(opt.Seed, math.MaxUint64))
	// A folder holds ~40 notes on average, in a tree at most four deep.
	g.folders = []string{""}
	depth := []int{0}
	used := map[string]bool{"": true}
	for k := 1; k < max(1, opt.Notes/40); k++ {
		parent := r.IntN(k)
		if depth[parent] >= 4 {
			parent = 0
		}
		w := src.Words[r.IntN(len(src.Words))]
		name := strings.ToUpper(w[:1]) + w[1:]
		if r.IntN(3) == 0 {
			name = fmt.Sprintf("%02d - %s", r.IntN(20), name)
		}
		p := strings.TrimPrefix(g.folders[parent]+"/"+name, "/")
		for n := 2; used[strings.ToLower(p)]; n++ {
			p = strings.TrimPrefix(fmt.Sprintf("%s/%s %d", g.folders[parent], name, n), "/")
		}
		used[strings.ToLower(p)] = true
		g.folders = append(g.folders, p)
		depth = append(depth, depth[parent]+1)
	}
	taken := map[string]int{}
	g.titles = make([]string, opt.Notes)
	g.where = make([]int32, opt.Notes)
	for i := range g.titles {
		t := src.Titles[r.IntN(len(src.Titles))]
		key := strings.ToLower(t)
		if n := taken[key]; n > 0 {
			for taken[strings.ToLower(t+" "+strconv.Itoa(n+1))] > 0 {
				n++
			}
			taken[key] = n + 1
			t = t + " " + strconv.Itoa(n+1)
			key = strings.ToLower(t)
		}
		taken[key] = 1
		g.titles[i] = t
		if r.IntN(20) > 0 {
			g.where[i] = int32(r.IntN(len(g.folders)))
		}
	}
	return g
}

// note returns note i's vault-relative path, its text and its number of
// links.
func (g *gen) note(i int) (string, string, int) {
	r := rand.New(rand.NewPCG(g.opt.Seed, uint64(i)))
	src := g.src
	var b strings.Builder
	links := 0
	link := func() string {
		links++
		j := g.target(r, i)
		switch r.IntN(10) {
		case 0:
			return "[[" + g.titles[j] + "|" + strings.ToLower(firstWords(g.titles[j], 2)) + "]]"
		case 1:
			return "[[" + g.titles[j] + "#" + src.Headings[r.IntN(len(src.Headings))] + "]]"
		default:
			return "[[" + g.titles[j] + "]]"
		}
	}
	// A log-normal size (median ~0.73 of its mean), as notes are; the
	// last block added overshoots it by ~700 bytes on average.
	target := int(float64(g.opt.MeanBytes-700) * 0.73 * math.Exp(0.8*r.NormFloat64()))
	target = min(max(target, 200), 40*g.opt.MeanBytes)

	if r.IntN(20) > 0 {
		b.WriteString("---\n")
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, "aliases:\n  - %s\n", yamlString(src.Headings[r.IntN(len(src.Headings))]))
		}
		b.WriteString("tags:\n")
		for range 1 + r.IntN(3) {
			fmt.Fprintf(&b, "  - %s\n", src.Tags[r.IntN(len(src.Tags))])
		}
		fmt.Fprintf(&b, "created: %04d-%02d-%02d\n", 2019+r.IntN(7), 1+r.IntN(12), 1+r.IntN(28))
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "status: %s\n", []string{"draft", "seedling", "evergreen", "in-progress", "done"}[r.IntN(5)])
		}
		if r.IntN(3) == 0 {
			b.WriteString("publish: true\n")
		}
		b.WriteString("---\n\n")
	}
	fmt.Fprintf(&b, "# %s\n\n", g.titles[i])
	level := "##"
	for b.Len() < target {
		switch r.IntN(10) {
		case 0, 1, 2:
			fmt.Fprintf(&b, "%s %s\n\n", level, src.Headings[r.IntN(len(src.Headings))])
			level = []string{"##", "###"}[r.IntN(2)]
		case 3:
			// A list of links, as maps of content have.
			for range 2 + r.IntN(5) {
				fmt.Fprintf(&b, "- %s\n", link())
			}
			b.WriteString("\n")
		case 4, 5:
			b.WriteString(src.Abstracts[r.IntN(len(src.Abstracts))])
			if r.IntN(3) == 0 {
				b.WriteString(" See " + link() + ".")
			}
			b.WriteString("\n\n")
		default:
			b.WriteString(src.Paragraphs[r.IntN(len(src.Paragraphs))])
			if r.IntN(3) == 0 {
				b.WriteString(" Related: " + link() + ".")
			}
			b.WriteString("\n\n")
		}
	}
	if r.IntN(50) == 0 {
		links++
		fmt.Fprintf(&b, "![[%s]]\n\n", g.titles[g.target(r, i)])
	}
	if r.IntN(5) < 2 {
		for k := range 1 + r.IntN(3) {
			if k > 0 {
				b.WriteString(" ")
			}
			b.WriteString("#" + src.Tags[r.IntN(len(src.Tags))])
		}
		b.WriteString("\n")
	}
	rel := g.titles[i] + ".md"
	if f := g.folders[g.where[i]]; f != "" {
		rel = f + "/" + rel
	}
	return rel, b.String(), links
}

// target picks a note for note i to link to: a neighbour (notes written
// together link to each other), any note, or one of a few popular ones.
func (g *gen) target(r *rand.Rand, i int) int {
	n := len(g.titles)
	switch r.IntN(10) {
	case 0, 1, 2, 3:
		return (i + 1 + r.IntN(min(200, n))) % n
	case 4, 5, 6:
		return r.IntN(n)
	default:
		u := r.Float64()
		return int(float64(n) * u * u * u)
	}
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// yamlString quotes a value for YAML when it needs it.
func yamlString(s string) string {
	if strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || strings.TrimSpace(s) != s || s == "" {
		b, _ := json.Marshal(s)
		return string(b)
	}
	return s
}

// isGenerated reports whether dir holds a complete vault made by this
// generator version for opt.
func isGenerated(dir string, opt Options) bool {
	m, err := ReadManifest(dir)
	return err == nil && m.Version == Version && m.Notes == opt.Notes && m.Seed == opt.Seed &&
		(opt.MeanBytes == 0 || m.MeanSize == opt.MeanBytes)
}

// Cached returns the vault for opt under cache, generating it (with the
// source load gives) when it is not there yet. Vaults are named by note
// count, seed and generator version.
func Cached(cache string, opt Options, load func() (*Source, error)) (string, *Manifest, error) {
	if opt.MeanBytes <= 0 {
		opt.MeanBytes = 2500
	}
	dir := filepath.Join(cache, fmt.Sprintf("vault-n%d-seed%d-v%d", opt.Notes, opt.Seed, Version))
	if isGenerated(dir, opt) {
		m, err := ReadManifest(dir)
		return dir, m, err
	}
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", nil, err
	}
	src, err := load()
	if err != nil {
		return "", nil, err
	}
	m, err := Generate(dir, src, opt)
	return dir, m, err
}
