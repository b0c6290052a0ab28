// Package vaultgen generates synthetic Obsidian-style vaults from real
// text for the scale benchmark: notes with YAML frontmatter, headings,
// paragraphs, lists, tags and wikilinks to other generated notes, in
// nested folders, their text drawn from a source vault's notes (e.g.
// obsidian-hub) and a BEIR corpus's abstracts (e.g. SciFact). The output is
// a function of the sources, the note count and the seed only: the same
// inputs give the same bytes, whatever the machine or worker count.
package vaultgen

import (
	"bufio"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ragd/ragd/bench/peer"
)

// Source is the text notes are drawn from.
type Source struct {
	Titles     []string // source note titles and abstract titles, cleaned for file names
	Headings   []string // section headings of the source notes
	Paragraphs []string // prose and list blocks of the source notes, links flattened
	Abstracts  []string // corpus documents' text
	Tags       []string // tags seen in the source notes
	Words      []string // distinct words of the headings, for folder names
	// Notes is the source vault's note count and Bytes its size: a scale of
	// 1 is that many notes.
	Notes int
	Bytes int64
}

var (
	wikilink   = regexp.MustCompile(`!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]`)
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	tagRe      = regexp.MustCompile(`(?:^|\s)#([A-Za-z][\w/-]*)`)
	wordRe     = regexp.MustCompile(`^[A-Za-z][a-z]{3,11}$`)
	badNameRe  = regexp.MustCompile(`[\\/:*?"<>|#^\[\]]+`)
	spacesRe   = regexp.MustCompile(`\s+`)
	headingRe  = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	fmTagsLine = regexp.MustCompile(`^\s+-\s+([A-Za-z][\w/-]*)\s*$`)
)

// LoadSource reads the notes of vault (Markdown, in path order) and the
// documents of a BEIR corpus.jsonl.
func LoadSource(vault, corpus string) (*Source, error) {
	s := &Source{}
	tags := map[string]bool{}
	words := map[string]bool{}
	err := peer.VaultDocs(vault)(func(d peer.Doc) error {
		if !strings.HasSuffix(d.ID, ".md") {
			return nil
		}
		s.Notes++
		s.Bytes += int64(len(d.Body))
		if t := cleanTitle(d.Title); t != "" {
			s.Titles = append(s.Titles, t)
		}
		s.addNote(d.Body, tags, words)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source vault: %w", err)
	}
	err = peer.BEIRDocs(corpus)(func(d peer.Doc) error {
		if t := cleanTitle(d.Title); t != "" {
			s.Titles = append(s.Titles, t)
		}
		if text := strings.TrimSpace(d.Body); len(text) > 80 {
			s.Abstracts = append(s.Abstracts, text)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("source corpus: %w", err)
	}
	s.Tags = sortedKeys(tags)
	s.Words = sortedKeys(words)
	if len(s.Paragraphs) == 0 || len(s.Abstracts) == 0 || len(s.Titles) == 0 || len(s.Headings) == 0 || len(s.Words) == 0 {
		return nil, fmt.Errorf("source too small: %d paragraphs, %d abstracts, %d titles, %d headings", len(s.Paragraphs), len(s.Abstracts), len(s.Titles), len(s.Headings))
	}
	if len(s.Tags) == 0 {
		s.Tags = []string{"note"}
	}
	return s, nil
}

// addNote splits one source note into headings and blocks: frontmatter
// gives tags, code fences and tables are left out, links become their text.
func (s *Source) addNote(body string, tags, words map[string]bool) {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var block []string
	flush := func() {
		if len(block) > 0 {
			if p := strings.TrimSpace(strings.Join(block, "\n")); len(p) >= 40 {
				s.Paragraphs = append(s.Paragraphs, p)
			}
			block = block[:0]
		}
	}
	inFM, inFence, first := false, false, true
	fmKey := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case first && line == "---":
			inFM = true
		case inFM:
			if line == "---" {
				inFM = false
			} else if m := fmTagsLine.FindStringSubmatch(line); m != nil && fmKey == "tags" {
				tags[m[1]] = true
			} else if k, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") {
				fmKey = k
			}
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			flush()
			inFence = !inFence
		case inFence, strings.HasPrefix(strings.TrimSpace(line), "|"), strings.HasPrefix(line, "<"):
			flush()
		case headingRe.MatchString(line):
			flush()
			h := flatten(headingRe.FindStringSubmatch(line)[1])
			if n := len(strings.Fields(h)); n >= 1 && n <= 8 && len(h) < 80 {
				s.Headings = append(s.Headings, h)
				for _, w := range strings.Fields(h) {
					if wordRe.MatchString(w) {
						words[strings.ToLower(w)] = true
					}
				}
			}
		case strings.TrimSpace(line) == "":
			flush()
		default:
			for _, m := range tagRe.FindAllStringSubmatch(line, -1) {
				tags[m[1]] = true
			}
			block = append(block, flatten(line))
		}
		first = false
	}
	flush()
}

// flatten turns links into their text, so that a generated note links
// only to generated notes.
func flatten(s string) string {
	s = wikilink.ReplaceAllStringFunc(s, func(m string) string {
		sub := wikilink.FindStringSubmatch(m)
		if sub[2] != "" {
			return sub[2]
		}
		return sub[1]
	})
	return strings.TrimSpace(mdLink.ReplaceAllString(s, "$1"))
}

// cleanTitle makes a title usable as a file name: no path or link
// characters, at most eight words.
func cleanTitle(t string) string {
	t = badNameRe.ReplaceAllString(t, " ")
	f := strings.Fields(spacesRe.ReplaceAllString(t, " "))
	if len(f) > 8 {
		f = f[:8]
	}
	t = strings.Trim(strings.Join(f, " "), ". ")
	if len(t) > 80 {
		t = strings.TrimSpace(t[:80])
	}
	return t
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
