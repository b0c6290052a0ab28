package query

import (
	"cmp"
	"slices"
	"strings"
)

// lineRange is a run of consecutive lines of one file assembled from one
// or more hits.
type lineRange struct {
	start    int      // line number of lines[0]
	lines    []string // the text of each line, without its line ending
	headings []string // for each line, the heading of the best hit covering it
	score    float64  // best score of the hits in the range
	anchor   int      // first line of the best hit in the range
}

func (r *lineRange) end() int { return r.start + len(r.lines) - 1 }

// fileGroup holds the merged ranges of one file, in line order.
type fileGroup struct {
	vault, path, abs string
	stale            bool
	score            float64 // best range score
	first            int     // input position of the file's first hit, for ties
	ranges           []lineRange
}

// hitLines splits a hit's text into its lines. Text holds lines LineStart
// to LineEnd joined by "\n", with or without a final "\n"; a final "\r" on
// a line is a CRLF line ending and is dropped. When the text does not hold
// LineEnd-LineStart+1 lines the text wins: its lines are numbered from
// LineStart, so the block never shows a line under the wrong number.
func hitLines(h ContextHit) []string {
	lines := strings.Split(h.Text, "\n")
	want := h.LineEnd - h.LineStart + 1
	if len(lines) != want && len(lines) > 1 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// mergeHits groups hits by file and merges them line by line: every line
// number covered by any hit appears once, and consecutive line numbers form
// one range, so overlapping, duplicate and adjacent chunks become a single
// range while a gap of one line or more keeps ranges apart. Blank lines at
// the edges of a range are dropped (a range of blank lines disappears). A line's text
// comes from the best-scored hit holding it, unless another hit holds a
// longer text containing it (the first hit quoted part of the line). Files
// are ordered by their best score, ties by first appearance in hits.
func mergeHits(hits []ContextHit) []*fileGroup {
	order := make([]int, 0, len(hits))
	for i, h := range hits {
		if h.LineStart >= 1 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(hits[b].Score, hits[a].Score) })
	rank := make([]int, len(hits)) // position of each hit in order
	for r, hi := range order {
		rank[hi] = r
	}

	type fileLines struct {
		g     *fileGroup
		text  map[int]string
		owner map[int]int // best hit covering the line
	}
	byFile := map[[2]string]*fileLines{}
	var files []*fileLines
	for _, hi := range order {
		h := hits[hi]
		key := [2]string{h.Vault, h.Path}
		f := byFile[key]
		if f == nil {
			f = &fileLines{g: &fileGroup{vault: h.Vault, path: h.Path, abs: h.AbsPath, first: hi},
				text: map[int]string{}, owner: map[int]int{}}
			byFile[key] = f
			files = append(files, f)
		}
		f.g.first = min(f.g.first, hi)
		f.g.stale = f.g.stale || h.Stale
		if f.g.abs == "" {
			f.g.abs = h.AbsPath
		}
		for i, l := range hitLines(h) {
			n := h.LineStart + i
			old, ok := f.text[n]
			if !ok {
				f.text[n], f.owner[n] = l, hi
			} else if len(l) > len(old) && strings.Contains(l, old) {
				f.text[n] = l
			}
		}
	}

	groups := make([]*fileGroup, 0, len(files))
	for _, f := range files {
		nums := make([]int, 0, len(f.text))
		for n := range f.text {
			nums = append(nums, n)
		}
		slices.Sort(nums)
		for i := 0; i < len(nums); {
			j := i + 1
			for j < len(nums) && nums[j] == nums[j-1]+1 {
				j++
			}
			run := nums[i:j]
			i = j
			// Blank lines at the edges of a range say nothing; they are
			// neither quoted nor cited.
			for len(run) > 0 && isBlank(f.text[run[0]]) {
				run = run[1:]
			}
			for len(run) > 0 && isBlank(f.text[run[len(run)-1]]) {
				run = run[:len(run)-1]
			}
			if len(run) == 0 {
				continue
			}
			r := lineRange{start: run[0]}
			best := -1
			for _, n := range run {
				r.lines = append(r.lines, f.text[n])
				r.headings = append(r.headings, hits[f.owner[n]].Heading)
				// Hits are processed best first, so the best hit of the
				// range is the one whose position in order is lowest.
				if o := f.owner[n]; best < 0 || rank[o] < rank[best] {
					best = o
				}
			}
			r.score = hits[best].Score
			r.anchor = min(max(hits[best].LineStart, r.start), r.end())
			if len(f.g.ranges) == 0 || r.score > f.g.score {
				f.g.score = r.score
			}
			f.g.ranges = append(f.g.ranges, r)
		}
		groups = append(groups, f.g)
	}
	slices.SortStableFunc(groups, func(a, b *fileGroup) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.first, b.first)
	})
	return groups
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }
