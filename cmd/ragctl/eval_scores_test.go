package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/metrics"
)

// chunkIndex is a fake daemon whose ranking lists each note's chunks
// together: note i's chunks are results i*per … i*per+per-1. Asked for k
// results it returns the first k, or all there are; with reorder, any
// request past k = 100 swaps the first two notes, as a deeper rerank may.
type chunkIndex struct {
	notes, per int
	reorder    bool
	asked      []int
}

func (c *chunkIndex) search(k int) ([]string, int, error) {
	c.asked = append(c.asked, k)
	var results []ipc.Result
	for i := 0; i < c.notes*c.per && len(results) < k; i++ {
		note := i / c.per
		if c.reorder && k > 100 && note < 2 {
			note = 1 - note
		}
		results = append(results, ipc.Result{ID: fmt.Sprint(i), Path: fmt.Sprintf("note-%03d.md", note)})
	}
	return collapse(results), len(results), nil
}

func TestFillDistinct(t *testing.T) {
	tests := []struct {
		name       string
		notes, per int
		maxK       int
		wantDocs   int
		wantAsked  []int
	}{
		// 100 chunks are 20 notes; 20 → 625 chunks (5 per note, a quarter to spare).
		{name: "five chunks a note", notes: 300, per: 5, maxK: ipc.MaxK, wantDocs: 100, wantAsked: []int{100, 625}},
		{name: "one chunk a note", notes: 300, per: 1, maxK: ipc.MaxK, wantDocs: 100, wantAsked: []int{100}},
		// 60 notes of 5 chunks: 300 results, fewer than asked, so no more.
		{name: "results run out", notes: 60, per: 5, maxK: ipc.MaxK, wantDocs: 60, wantAsked: []int{100, 625}},
		{name: "fewer than k at once", notes: 10, per: 5, maxK: ipc.MaxK, wantDocs: 10, wantAsked: []int{100}},
		// 40 chunks a note: never past the daemon's maximum k.
		{name: "capped at max k", notes: 300, per: 40, maxK: ipc.MaxK, wantDocs: 25, wantAsked: []int{100, 1000}},
		{name: "small max k", notes: 300, per: 5, maxK: 50, wantDocs: 10, wantAsked: []int{50}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &chunkIndex{notes: tt.notes, per: tt.per}
			docs, err := fillDistinct(evalDepth, tt.maxK, c.search)
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != tt.wantDocs || !slices.Equal(c.asked, tt.wantAsked) {
				t.Errorf("%d documents after asking k = %v, want %d after %v", len(docs), c.asked, tt.wantDocs, tt.wantAsked)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(docs)))) != len(docs) {
				t.Errorf("repeated documents in %q", docs)
			}
			for i, d := range docs {
				if want := fmt.Sprintf("note-%03d.md", i); d != want {
					t.Fatalf("rank %d is %s, want %s", i+1, d, want)
				}
			}
		})
	}
}

// TestFillDistinctKeepsHead checks that a deeper search only fills the
// tail: the head is that of the k = 100 search, so nDCG@10 and MRR@10 are
// what they were before filling.
func TestFillDistinctKeepsHead(t *testing.T) {
	c := &chunkIndex{notes: 300, per: 5, reorder: true}
	docs, err := fillDistinct(evalDepth, ipc.MaxK, c.search)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != evalDepth || docs[0] != "note-000.md" || docs[1] != "note-001.md" || docs[20] != "note-020.md" {
		t.Errorf("got %d documents starting %q, want 100 starting with note-000, note-001", len(docs), docs[:3])
	}
}

func TestFillDistinctError(t *testing.T) {
	calls := 0
	_, err := fillDistinct(evalDepth, ipc.MaxK, func(k int) ([]string, int, error) {
		if calls++; calls == 2 {
			return nil, 0, io.ErrUnexpectedEOF
		}
		return []string{"a"}, k, nil
	})
	if err != io.ErrUnexpectedEOF {
		t.Errorf("error %v, want the second search's", err)
	}
}

func TestNextK(t *testing.T) {
	for _, tt := range []struct{ k, found, want, maxK, next int }{
		{100, 20, 100, 1000, 625}, // 5 results a note, and a quarter more
		{100, 90, 100, 1000, 200}, // at least double
		{100, 0, 100, 1000, 200},  // nothing found yet: double
		{625, 90, 100, 1000, 1000},
		{100, 1, 100, 1000, 1000},
	} {
		if got := nextK(tt.k, tt.found, tt.want, tt.maxK); got != tt.next {
			t.Errorf("nextK(%d, %d, %d, %d) = %d, want %d", tt.k, tt.found, tt.want, tt.maxK, got, tt.next)
		}
	}
}

func TestCollapse(t *testing.T) {
	got := collapse([]ipc.Result{{Path: "b.md"}, {Path: "a.md"}, {Path: "b.md"}, {Path: "c/d.md"}, {Path: "a.md"}})
	if want := []string{"b.md", "a.md", "c/d.md"}; !slices.Equal(got, want) {
		t.Errorf("collapse = %q, want %q", got, want)
	}
}

// evalQuestions are four questions of three kinds, one of them unlabelled.
var evalQuestions = []vaultQuestion{
	{text: "restic retention", kind: "keyword", files: metrics.Judgments{"Restic.md": 1}},
	{text: "what failed on March 14", kind: "factual", files: metrics.Judgments{"2024-03-14.md": 1, "Restic.md": 1}},
	{text: "which note links the pool", kind: "link", files: metrics.Judgments{"ZFS.md": 1}},
	{text: "zpool scrub", kind: "keyword", files: metrics.Judgments{"ZFS.md": 1}},
}

func ranked(relevantAt map[string]int) []string {
	out := make([]string, 120)
	for i := range out {
		out[i] = fmt.Sprintf("other-%d.md", i)
	}
	for doc, rank := range relevantAt {
		out[rank-1] = doc
	}
	return out
}

func TestScoreVault(t *testing.T) {
	rep := scoreVault(evalQuestions, [][]string{
		ranked(map[string]int{"Restic.md": 1}),
		ranked(map[string]int{"2024-03-14.md": 3, "Restic.md": 50}),
		ranked(map[string]int{"ZFS.md": 101}), // past 100: not found
		ranked(map[string]int{"ZFS.md": 7}),
	})
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	all := rep.scores
	if all.Queries != 4 || !near(all.Success5, 0.5) || !near(all.Recall5, 1.5/4) || !near(all.Recall10, 2.5/4) ||
		!near(all.MRR10, (1+1.0/3+1.0/7)/4) || !near(all.Recall100, 3.0/4) {
		t.Errorf("overall %+v", all)
	}
	kinds := []string{}
	for _, k := range rep.Kinds {
		kinds = append(kinds, fmt.Sprintf("%s %d %.4f %.4f", k.Kind, k.Queries, k.Success5, k.Recall10))
	}
	if want := []string{"keyword 2 0.5000 1.0000", "factual 1 1.0000 0.5000", "link 1 0.0000 0.0000"}; !slices.Equal(kinds, want) {
		t.Errorf("kinds %q, want %q", kinds, want)
	}
	if want := []string{"which note links the pool"}; !slices.Equal(rep.Misses, want) {
		t.Errorf("misses %q, want %q", rep.Misses, want)
	}

	// Only unlabelled questions: no per-kind rows.
	plain := []vaultQuestion{{text: "q", files: metrics.Judgments{"a.md": 1}}}
	if rep := scoreVault(plain, [][]string{{"a.md"}}); rep.Kinds != nil || rep.MRR10 != 1 {
		t.Errorf("unlabelled: kinds %v, MRR@10 %v", rep.Kinds, rep.MRR10)
	}
}

// TestVaultReportOutput checks the text and the JSON keys of a vault
// report with a peer, per kind.
func TestVaultReportOutput(t *testing.T) {
	rep := scoreVault(evalQuestions, [][]string{
		ranked(map[string]int{"Restic.md": 1}),
		ranked(map[string]int{"2024-03-14.md": 3, "Restic.md": 50}),
		ranked(map[string]int{"ZFS.md": 101}),
		ranked(map[string]int{"ZFS.md": 7}),
	})
	rep.Engine, rep.IndexSeconds = "ragd", 1.25
	fts := scoreVault(evalQuestions, [][]string{
		ranked(map[string]int{"Restic.md": 2}),
		ranked(map[string]int{"2024-03-14.md": 12, "Restic.md": 1}),
		ranked(map[string]int{"ZFS.md": 4}),
		ranked(map[string]int{}),
	})
	fts.Engine, fts.IndexSeconds = "fts5", 0.5
	rep.Peers = []*vaultReport{fts}
	var b bytes.Buffer
	rep.print(&b, "vault")
	golden(t, "eval-vault.golden", b.Bytes())

	b.Reset()
	writeJSON(&b, rep)
	var keys map[string]any
	if err := json.Unmarshal(b.Bytes(), &keys); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"engine", "queries", "success_at_5", "recall_at_5", "recall_at_10", "mrr_at_10", "recall_at_100", "index_seconds", "kinds", "peers"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b.Bytes())
		}
	}
	kind := keys["kinds"].([]any)[0].(map[string]any)
	if kind["kind"] != "keyword" || kind["queries"] != 2.0 || kind["success_at_5"] != 0.5 {
		t.Errorf("first kind %v", kind)
	}
}

func TestChoosePeers(t *testing.T) {
	en := []string{"how do I pin a tab", "graph view filters"}
	zh := []string{"东京的拉面店", "如何备份笔记", "日本語の文法", "restic retention"}
	mixed := []string{"東京のラーメン", "how do I pin a tab", "graph view", "canvas cards", "links"}
	tests := []struct {
		flag      string
		questions []string
		want      []string
		err       bool
	}{
		{"", en, nil, false},
		{"fts5", en, []string{"fts5"}, false},
		{"fts5", zh, []string{"fts5-trigram"}, false},
		{"fts5", mixed, []string{"fts5", "fts5-trigram"}, false},
		{"fts5-trigram", en, []string{"fts5-trigram"}, false},
		{"fts5,bleve", en, []string{"fts5", "bleve"}, false},
		{"fts5, fts5-trigram", zh, []string{"fts5-trigram"}, false},
		{"lucene", en, nil, true},
	}
	for _, tt := range tests {
		got, err := choosePeers(tt.flag, tt.questions, io.Discard)
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("choosePeers(%q) = %q, %v; want %q (error %v)", tt.flag, got, err, tt.want, tt.err)
		}
	}
	if got := cjkShare(zh); got != 0.75 {
		t.Errorf("cjkShare = %v, want 0.75", got)
	}
}
