package query

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ragd/ragd/ipc"
)

// Plan is a query split into the words the channels search and the filters
// written inline (query planning done by heuristics instead of a language
// model).
//
// The syntax, token by token (a token starts at the beginning of the query
// or after whitespace):
//
//	"two words"       a phrase: kept in Phrases, and in Text without quotes
//	path:folder/      a vault-relative path prefix; path:"with space/" quotes
//	vault:name        a vault name
//	#tag  #a/b        a tag when '#' starts the token and a letter follows it
//	tag:x  tag:#x     the same tag written as a filter
//	after:2024-01-31  modified on or after the start of that day
//	before:2024-01    modified before the start of that month
//	mode:lexical      one of lexical, vector, hybrid
//
// Keys are case-insensitive (PATH: is path:). A value may mix quoted and
// unquoted parts, like a shell word (path:"My Notes"/2024). A word whose
// key is not one of these (http://x, 10:30, re:x) is plain text, and so is
// a filter that does not start a token ("(path:x)", "C#", "page#anchor").
// Curly quotes (“…”) work like straight ones.
//
// Several path: filters are alternatives (OR), and so are several vault:
// filters; every tag must be present (AND, as the index's tag filter
// applies them); the kinds combine with AND. Repeated date filters must all hold,
// so the latest after: and the earliest before: win. A repeated mode: keeps
// the last one and notes the conflict in Problems. Repeated values are kept
// once. Invalid UTF-8 reads as U+FFFD.
//
// A filter that cannot be parsed (an empty value, a bad date, an unknown
// mode, an unclosed quote) is reported in Problems and its token stays in
// Text as a plain word. An unclosed phrase quote is dropped and the words
// after it are read as usual.
type Plan struct {
	// Text is the query without its filter tokens, words separated by
	// single spaces; it is what the channels search. A query made only of
	// filters leaves it empty.
	Text string
	// Phrases are the quoted phrases, inner whitespace collapsed.
	Phrases []string
	// Paths are vault-relative path prefixes without a leading "/" or "./";
	// a note under any of them matches.
	Paths []string
	// Vaults are vault names as written; a note in any of them matches.
	Vaults []string
	// Tags are lower-cased, without '#' and without a trailing '/'; a
	// note must carry all of them.
	Tags []string
	// After, when set, keeps notes modified at or after this instant: the
	// start of the written day, month or year in the plan's time zone.
	After time.Time
	// Before, when set, keeps notes modified strictly before this instant:
	// the start of the written period. So "after:2024 before:2025" is the
	// year 2024 and "before:2024-03" ends with the last instant of February.
	Before time.Time
	// Mode is "lexical", "vector" or "hybrid" when written, else "".
	Mode string
	// Problems describe the filters that could not be used, each as
	// "<token>: <reason>".
	Problems []string
}

// InDateRange reports whether a modification time passes the plan's after:
// and before: filters.
func (p Plan) InDateRange(mod time.Time) bool {
	if !p.After.IsZero() && mod.Before(p.After) {
		return false
	}
	return p.Before.IsZero() || mod.Before(p.Before)
}

// ParsePlan parses q with dates in the local time zone.
func ParsePlan(q string) Plan { return ParsePlanIn(q, time.Local) }

// ParsePlanIn parses q with dates in loc (nil means UTC).
func ParsePlanIn(q string, loc *time.Location) Plan {
	if loc == nil {
		loc = time.UTC
	}
	ps := planParser{rs: []rune(q), loc: loc}
	ps.run()
	p := ps.plan
	p.Text = strings.Join(ps.words, " ")
	if !p.After.IsZero() && !p.Before.IsZero() && !p.After.Before(p.Before) {
		p.Problems = append(p.Problems, fmt.Sprintf("%s %s: empty date range", ps.afterTok, ps.beforeTok))
	}
	return p
}

type planParser struct {
	rs                  []rune
	loc                 *time.Location
	plan                Plan
	words               []string
	afterTok, beforeTok string
	modeTok             string
}

const (
	dateWant = "not a date (want YYYY, YYYY-MM or YYYY-MM-DD)"
	modeWant = "unknown mode (want lexical, vector or hybrid)"
	tagWant  = "not a tag (want letters, digits, '_', '-' or '/', with at least one letter)"
)

func (ps *planParser) problem(tok, reason string) {
	ps.plan.Problems = append(ps.plan.Problems, tok+": "+reason)
}

func (ps *planParser) run() {
	rs := ps.rs
	for i := 0; i < len(rs); {
		switch r := rs[i]; {
		case unicode.IsSpace(r):
			i++
		case isOpenQuote(r):
			i = ps.phrase(i)
		case r == '#' && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			i = ps.hashTag(i)
		default:
			i = ps.word(i)
		}
	}
}

// phrase reads a quoted phrase opening at i.
func (ps *planParser) phrase(i int) int {
	rs := ps.rs
	end := closeQuote(rs, i)
	if end < 0 {
		ps.problem(strings.TrimSpace(string(rs[i:])), "unclosed quote, read as plain words")
		return i + 1
	}
	if ph := strings.Join(strings.Fields(string(rs[i+1:end])), " "); ph != "" {
		ps.plan.Phrases = appendNew(ps.plan.Phrases, ph)
		ps.words = append(ps.words, ph)
	}
	// Anything glued to the closing quote is a plain word.
	i = end + 1
	if e := wordEnd(rs, i); e > i {
		ps.words = append(ps.words, string(rs[i:e]))
		i = e
	}
	return i
}

// hashTag reads "#tag" at i; rs[i+1] is a letter.
func (ps *planParser) hashTag(i int) int {
	rs := ps.rs
	j := i + 1
	for j < len(rs) && isTagRune(rs[j]) {
		j++
	}
	ps.plan.Tags = appendNew(ps.plan.Tags, normTag(string(rs[i+1:j])))
	// Punctuation after the tag ("#todo," "#a/b.") goes with it; any other
	// rest of the word stays text.
	e := wordEnd(rs, j)
	if rest := string(rs[j:e]); strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsPunct(r) }) >= 0 {
		ps.words = append(ps.words, rest)
	}
	return e
}

// word reads a token at i: a filter when it starts with a known key,
// otherwise a plain word.
func (ps *planParser) word(i int) int {
	rs := ps.rs
	k := i
	for k < len(rs) && isASCIILetter(rs[k]) {
		k++
	}
	key := strings.ToLower(string(rs[i:k]))
	if k == i || k >= len(rs) || rs[k] != ':' || !isFilterKey(key) {
		e := wordEnd(rs, i)
		ps.words = append(ps.words, string(rs[i:e]))
		return e
	}
	val, end, ok := readValue(rs, k+1)
	if !ok {
		e := wordEnd(rs, i)
		tok := string(rs[i:e])
		ps.problem(tok, "unclosed quote")
		ps.words = append(ps.words, tok)
		return e
	}
	tok := string(rs[i:end])
	if reason := ps.filter(key, tok, val); reason != "" {
		ps.problem(tok, reason)
		ps.words = append(ps.words, tok)
	}
	return end
}

// filter applies key:val and returns why it could not, or "".
func (ps *planParser) filter(key, tok, val string) string {
	val = strings.TrimSpace(val)
	if val == "" {
		return "empty value"
	}
	p := &ps.plan
	switch key {
	case "path":
		path := val
		for {
			trimmed := strings.TrimPrefix(strings.TrimPrefix(path, "./"), "/")
			if trimmed == path {
				break
			}
			path = trimmed
		}
		if path == "" || path == "." {
			return "empty path (the whole vault needs no filter)"
		}
		if slices.Contains(strings.Split(path, "/"), "..") {
			return `path must stay inside the vault (no "..")`
		}
		p.Paths = appendNew(p.Paths, path)
	case "vault":
		p.Vaults = appendNew(p.Vaults, val)
	case "tag":
		t := strings.TrimPrefix(val, "#")
		if !validTag(t) {
			return tagWant
		}
		p.Tags = appendNew(p.Tags, normTag(t))
	case "after", "before":
		d, ok := parsePeriod(val, ps.loc)
		if !ok {
			return dateWant
		}
		if key == "after" {
			if p.After.IsZero() || d.After(p.After) {
				p.After, ps.afterTok = d, tok
			}
		} else if p.Before.IsZero() || d.Before(p.Before) {
			p.Before, ps.beforeTok = d, tok
		}
	case "mode":
		m := strings.ToLower(val)
		if !slices.Contains(ipc.Modes, m) {
			return modeWant
		}
		if p.Mode != "" && p.Mode != m {
			ps.problem(tok, "overrides "+ps.modeTok)
		}
		p.Mode, ps.modeTok = m, tok
	}
	return ""
}

// parsePeriod parses YYYY, YYYY-MM or YYYY-MM-DD as the start of that
// period in loc.
func parsePeriod(s string, loc *time.Location) (time.Time, bool) {
	for _, layout := range [...]string{"2006-01-02", "2006-01", "2006"} {
		if len(s) != len(layout) {
			continue
		}
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// readValue reads a filter value from i: unquoted runs and quoted parts up
// to the first unquoted whitespace. ok is false when a quote is not closed.
func readValue(rs []rune, i int) (val string, end int, ok bool) {
	var b strings.Builder
	for i < len(rs) && !unicode.IsSpace(rs[i]) {
		if isOpenQuote(rs[i]) {
			c := closeQuote(rs, i)
			if c < 0 {
				return "", i, false
			}
			b.WriteString(string(rs[i+1 : c]))
			i = c + 1
			continue
		}
		b.WriteRune(rs[i])
		i++
	}
	return b.String(), i, true
}

func isFilterKey(k string) bool {
	switch k {
	case "path", "vault", "tag", "after", "before", "mode":
		return true
	}
	return false
}

func isOpenQuote(r rune) bool { return r == '"' || r == '“' }

// closeQuote returns the index of the quote closing the one at i, or -1.
// A straight quote closes with a straight one; “ closes with ” or ".
func closeQuote(rs []rune, i int) int {
	for j := i + 1; j < len(rs); j++ {
		if rs[j] == '"' || (rs[i] == '“' && rs[j] == '”') {
			return j
		}
	}
	return -1
}

func wordEnd(rs []rune, i int) int {
	for i < len(rs) && !unicode.IsSpace(rs[i]) {
		i++
	}
	return i
}

func isASCIILetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// isTagRune reports the runes an Obsidian tag may hold.
func isTagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '/'
}

func validTag(t string) bool {
	letter := false
	for _, r := range t {
		if !isTagRune(r) {
			return false
		}
		letter = letter || unicode.IsLetter(r)
	}
	return letter
}

func normTag(t string) string { return strings.ToLower(strings.TrimRight(t, "/")) }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
