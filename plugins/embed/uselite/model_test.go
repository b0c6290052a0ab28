package uselite

import (
	"context"
	"math"
	"testing"

	"github.com/ragd/ragd/plugins"
)

// TestMatchesReference compares the vectors with the package's own
// JavaScript, with each matmul kernel this processor has.
func TestMatchesReference(t *testing.T) {
	tok, m := testModel(t)
	ref := loadReference(t)
	ids := make([][]int32, len(ref.Sentences))
	for i, s := range ref.Sentences {
		ids[i] = tok.Encode(s.Text)
	}
	withKernel(t, func(kr microKernel) {
		got, err := m.EmbedIDs(context.Background(), ids, 2)
		if err != nil {
			t.Fatal(err)
		}
		minCos, maxDiff := 1.0, 0.0
		for i, s := range ref.Sentences {
			if len(got[i]) != len(s.Vector) {
				t.Fatalf("%q: %d dimensions, want %d", s.Text, len(got[i]), len(s.Vector))
			}
			c := cosine(got[i], s.Vector)
			for j, v := range s.Vector {
				maxDiff = max(maxDiff, math.Abs(float64(got[i][j])-v))
			}
			minCos = min(minCos, c)
			if c < 0.999 {
				t.Errorf("%s kernel, %q: cosine with the JS vector %.6f, want ≥ 0.999", kr.name, s.Text, c)
			}
		}
		t.Logf("%s kernel, %d sentences: min cosine %.9f, max |Δ| %.2g (reference: %s, %s backend)",
			kr.name, len(ref.Sentences), minCos, maxDiff, ref.Source, ref.Backend)
	})
}

func TestRanksRelatedAboveUnrelated(t *testing.T) {
	testModelDir(t)
	e := New()
	ctx := context.Background()
	if err := e.Configure(ctx, plugins.Options{"model_dir": testModelDir(t)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ query, related, unrelated string }{
		{"How do I back up my laptop?", "Restic makes encrypted backups of my home folder", "The recipe needs two eggs and flour"},
		{"What should I cook tonight?", "A quick pasta with garlic, tomatoes and basil", "Configure the firewall to block port 22"},
		{"Is it going to rain tomorrow?", "The forecast says showers in the afternoon", "The invoice is due at the end of the month"},
	} {
		v, err := e.Embed(ctx, plugins.InputQuery, []string{c.query, c.related, c.unrelated})
		if err != nil {
			t.Fatal(err)
		}
		rel, unrel := cosine32(v[0], v[1]), cosine32(v[0], v[2])
		t.Logf("%q: related %.3f, unrelated %.3f", c.query, rel, unrel)
		if rel <= unrel {
			t.Errorf("%q: related %.3f ≤ unrelated %.3f", c.query, rel, unrel)
		}
	}
}

// A sentence's vector does not depend on its batch, nor on how the batch
// is spread over threads.
func TestBatchIndependence(t *testing.T) {
	tok, m := testModel(t)
	texts := []string{
		"short one",
		"",
		"a somewhat longer sentence about vaults, notes and the daemon that watches them",
		"x",
	}
	var batch [][]int32
	for range 5 { // enough chunks to take the one-chunk-per-thread path
		for _, s := range texts {
			batch = append(batch, tok.Encode(s))
		}
	}
	long := tok.Encode(longText(200))
	for range 8 {
		batch = append(batch, long)
	}
	ctx := context.Background()
	all, err := m.EmbedIDs(ctx, batch, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, ids := range batch {
		for _, threads := range []int{1, 2} {
			one, err := m.EmbedIDs(ctx, [][]int32{ids}, threads)
			if err != nil {
				t.Fatal(err)
			}
			for j := range one[0] {
				if d := math.Abs(float64(one[0][j] - all[i][j])); d > 1e-6 {
					t.Fatalf("sentence %d, %d threads: [%d] alone %g, in batch %g", i, threads, j, one[0][j], all[i][j])
				}
			}
		}
	}
	var n float64
	for _, v := range all[0] {
		n += float64(v) * float64(v)
	}
	if math.Abs(n-1) > 1e-5 {
		t.Errorf("|v|² = %g, want 1", n)
	}
}

func TestEmbedIDsRejectsBadIDs(t *testing.T) {
	_, m := testModel(t)
	if _, err := m.EmbedIDs(context.Background(), [][]int32{{1, 99999}}, 1); err == nil {
		t.Error("no error for an id past the vocabulary")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.EmbedIDs(ctx, [][]int32{{1, 2}}, 1); err == nil {
		t.Error("no error for a cancelled context")
	}
}

// An empty text has no tokens: its vector is the projection of a zero
// mean, as in the JS batch, even when no other text shares the chunk.
func TestEmptyTextAlone(t *testing.T) {
	_, m := testModel(t)
	ref := loadReference(t)
	for _, s := range ref.Sentences {
		if s.Text != "" {
			continue
		}
		got, err := m.EmbedIDs(context.Background(), [][]int32{{}, {}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			if c := cosine(v, s.Vector); c < 0.999999 {
				t.Errorf("cosine with the JS vector of \"\": %.7f", c)
			}
		}
		return
	}
	t.Fatal(`reference.json has no "" sentence`)
}
