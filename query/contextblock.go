package query

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragd/ragd/ipc"
)

// ContextHit is one retrieved chunk offered to BuildContext.
type ContextHit struct {
	Vault, Path, AbsPath string
	// LineStart and LineEnd are 1-based and inclusive; Text is exactly
	// these whole lines joined by "\n", with or without a final "\n".
	LineStart, LineEnd int
	Heading            string // "A > B"
	Text               string
	Score              float64
	Stale              bool // the file changed since indexing
}

// Context styles (ContextOptions.Style).
const (
	StyleSnippets = "snippets" // the text of every range, within the budget
	StyleSummary  = "summary"  // path, heading and the first preview lines of every range
)

// Context defaults.
const (
	DefaultContextBudget  = 6000
	DefaultPreviewLines   = 2
	minCutLines           = 3 // a range cut at the budget keeps at least this many lines
	staleNote             = "stale: file changed since indexing"
	retrievedContextOpen  = "<retrieved-context>"
	retrievedContextClose = "</retrieved-context>"
)

// ContextOptions shape the block.
type ContextOptions struct {
	// Budget is the most characters (runes) of quoted text the block may
	// hold; each quoted line counts its characters plus one for its
	// newline. Headers do not count. 0 means DefaultContextBudget.
	Budget int
	// Style is StyleSnippets (default) or StyleSummary.
	Style string
	// PreviewLines is, in summary style, how many non-blank lines of each
	// range are quoted, with the blank lines between them (default 2).
	PreviewLines int
}

// ContextBlock is a prompt-ready block of cited text.
type ContextBlock struct {
	// Text is the whole <retrieved-context> block, "" when nothing was
	// quoted.
	Text string
	// Citations describe the entries of the block in order: Citations[i]
	// is entry [i+1].
	Citations []ContextCitation
	// Truncated is set when the budget left out a range or part of one.
	Truncated bool
}

// ContextCitation is one entry of the block: a merged range of one file
// (the wire type). LineStart and LineEnd are the cited lines: in snippets
// style exactly the lines quoted, in summary style the whole retrieved
// range (of which the block quotes the first lines); Heading is the
// heading of the best hit holding the first quoted line; Score the best
// score of the hits merged into the range; Cite "path:Lstart-Lend", as
// written in the block.
type ContextCitation = ipc.ContextCitation

// BuildContext turns hits into a <retrieved-context> block, merged,
// grouped, previewed and cut to a budget.
//
// Hits of the same file (same vault and path) are merged line by line:
// duplicate, overlapping and adjacent chunks become one range, and a gap
// of a line or more keeps ranges apart. Every quoted line is a line of some
// hit, under its own line number; nothing is invented or reworded, and
// within a range nothing is skipped. Blank lines at the edges of a range
// are neither quoted nor cited.
//
// Entries are grouped by file, files ordered by their best score and the
// ranges of a file in line order. A file is stale when any of its hits is,
// and then all its entries are marked.
//
// The budget is spent on ranges best score first. A range that fits is
// quoted whole. The first range that does not fit is cut at line
// boundaries, keeping the lines from its best hit on (and before it when
// the end is reached), when at least three of its lines fit or nothing
// has been quoted yet; then the block stops. Truncated reports that
// something was left out.
//
// # Format
//
// One entry per range, numbered from 1 in block order:
//
//	<retrieved-context>
//	[1] homelab/Restic Backups.md:L63-L79 — Restic Backups > Retention policy
//	…lines 63 to 79, verbatim…
//
//	[2] homelab/Restic Backups.md:L102-L104 — Restic Backups > Pruning (stale: file changed since indexing)
//	…lines 102 to 104…
//
//	[3] homelab/NAS.md:L5-L9 — NAS > Disks (cut to fit the budget; the retrieved range is L5-L40)
//	…lines 5 to 9…
//	</retrieved-context>
//
// An entry is a header line, then its quoted lines verbatim (line endings
// normalised to "\n"), then a blank line before the next entry; the
// closing tag and a newline follow the last quoted line. The header is
//
//	[n] <path>:L<start>-L<end>[ — <heading>][ (<note>)]...
//
// where <path> is vault-relative, "<path>:L<start>-L<end>" is
// ContextCitation.Cite (a one-line range is L7-L7), the heading is that of
// the first quoted line, and the notes, in this order, are:
//
//	vault: <name>                         every entry, when the block quotes more than one vault
//	stale: file changed since indexing    the file may no longer hold these lines
//	cut to fit the budget; the retrieved range is L<a>-L<b>
//	                                      snippets: the cite is the part of the range that is quoted
//	preview: first <k> of <m> lines       summary: the cite is the whole range, its first k lines are quoted
//
// Quoted lines are not escaped. An entry quotes exactly end-start+1 lines,
// or k in a preview, so a reader counting lines never mistakes a quoted
// line for a header. The block is empty when nothing is quoted.
func BuildContext(hits []ContextHit, opt ContextOptions) ContextBlock {
	if opt.Budget <= 0 {
		opt.Budget = DefaultContextBudget
	}
	if opt.Style != StyleSummary {
		opt.Style = StyleSnippets
	}
	if opt.PreviewLines <= 0 {
		opt.PreviewLines = DefaultPreviewLines
	}
	groups := mergeHits(hits)

	// Entries in block order.
	type entry struct {
		g        *fileGroup
		r        *lineRange
		from, to int // quoted lines: r.lines[from:to]
		taken    bool
	}
	var entries []*entry
	for _, g := range groups {
		for i := range g.ranges {
			entries = append(entries, &entry{g: g, r: &g.ranges[i]})
		}
	}
	if len(entries) == 0 {
		return ContextBlock{}
	}

	// Spend the budget best range first.
	byScore := slices.Clone(entries)
	slices.SortStableFunc(byScore, func(a, b *entry) int {
		switch {
		case a.r.score > b.r.score:
			return -1
		case a.r.score < b.r.score:
			return 1
		}
		return 0
	})
	var out ContextBlock
	left, quoted := opt.Budget, 0
	for _, e := range byScore {
		lines := e.r.lines
		if opt.Style == StyleSummary {
			lines = previewOf(lines, opt.PreviewLines)
		}
		if cost := linesCost(lines); cost <= left {
			e.from, e.to, e.taken = 0, len(lines), true
			left -= cost
			quoted++
			continue
		}
		out.Truncated = true
		anchor := 0
		if opt.Style == StyleSnippets {
			anchor = e.r.anchor - e.r.start
		}
		from, to := fitWindow(lines, anchor, left)
		if n := to - from; n >= minCutLines || (n > 0 && quoted == 0) {
			e.from, e.to, e.taken = from, to, true
		}
		break
	}

	vaults := map[string]bool{}
	for _, e := range entries {
		if e.taken {
			vaults[e.g.vault] = true
		}
	}
	var b strings.Builder
	for _, e := range entries {
		if !e.taken {
			continue
		}
		if len(out.Citations) == 0 {
			b.WriteString(retrievedContextOpen + "\n")
		} else {
			b.WriteString("\n")
		}
		c := ContextCitation{Vault: e.g.vault, Path: e.g.path, AbsPath: e.g.abs,
			Heading: e.r.headings[e.from], Score: e.r.score, Stale: e.g.stale}
		if opt.Style == StyleSummary {
			c.LineStart, c.LineEnd = e.r.start, e.r.end()
		} else {
			c.LineStart, c.LineEnd = e.r.start+e.from, e.r.start+e.to-1
		}
		c.Cite = fmt.Sprintf("%s:L%d-L%d", oneLine(c.Path), c.LineStart, c.LineEnd)
		out.Citations = append(out.Citations, c)

		fmt.Fprintf(&b, "[%d] %s", len(out.Citations), c.Cite)
		if c.Heading != "" {
			b.WriteString(" — " + oneLine(c.Heading))
		}
		if len(vaults) > 1 {
			b.WriteString(" (vault: " + oneLine(c.Vault) + ")")
		}
		if c.Stale {
			b.WriteString(" (" + staleNote + ")")
		}
		switch shown := e.to - e.from; {
		case opt.Style == StyleSnippets && shown < len(e.r.lines):
			fmt.Fprintf(&b, " (cut to fit the budget; the retrieved range is L%d-L%d)", e.r.start, e.r.end())
		case opt.Style == StyleSummary && shown < len(e.r.lines):
			fmt.Fprintf(&b, " (preview: first %d of %d lines)", shown, len(e.r.lines))
		}
		b.WriteString("\n")
		for _, l := range e.r.lines[e.from:e.to] {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	if len(out.Citations) > 0 {
		b.WriteString(retrievedContextClose + "\n")
		out.Text = b.String()
	}
	return out
}

// linesCost is what quoting lines spends of the budget.
func linesCost(lines []string) int {
	n := 0
	for _, l := range lines {
		n += utf8.RuneCountInString(l) + 1
	}
	return n
}

// previewOf returns the first lines holding n non-blank lines.
func previewOf(lines []string, n int) []string {
	for i, l := range lines {
		if !isBlank(l) {
			if n--; n == 0 {
				return lines[:i+1]
			}
		}
	}
	return lines
}

// fitWindow returns the widest run lines[from:to] costing at most budget
// that starts at anchor and grows forward, then backward once the end is
// reached; blank lines at its edges are left out.
func fitWindow(lines []string, anchor, budget int) (from, to int) {
	from, to = anchor, anchor
	for to < len(lines) {
		c := utf8.RuneCountInString(lines[to]) + 1
		if c > budget {
			break
		}
		budget -= c
		to++
	}
	for to == len(lines) && from > 0 {
		c := utf8.RuneCountInString(lines[from-1]) + 1
		if c > budget {
			break
		}
		budget -= c
		from--
	}
	for from < to && isBlank(lines[from]) {
		from++
	}
	for to > from && isBlank(lines[to-1]) {
		to--
	}
	return from, to
}

// oneLine keeps a header on one line whatever a path or heading holds.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
