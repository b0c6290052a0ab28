package chunk

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadNotes(b *testing.B) [][]byte {
	files, err := globNotes()
	if err != nil || len(files) == 0 {
		b.Fatalf("no notes: %v", err)
	}
	var notes [][]byte
	for _, f := range files {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		notes = append(notes, src)
	}
	return notes
}

// BenchmarkMarkdown chunks every testdata note once per iteration.
func BenchmarkMarkdown(b *testing.B) { benchMarkdown(b, loadNotes(b)) }

// benchMarkdown chunks every note once per iteration.
func benchMarkdown(b *testing.B, notes [][]byte) {
	var n int64
	for _, s := range notes {
		n += int64(len(s))
	}
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range notes {
			if _, err := Markdown(s, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkMarkdownSciFact chunks a SciFact-sized (~1.5 KB) abstract and
// reports documents per second.
func BenchmarkMarkdownSciFact(b *testing.B) {
	src := []byte("# Effects of vitamin D supplementation on respiratory infections\n\n" + sentences(24) + "\n")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Markdown(src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkPlainText chunks the testdata notes as plain text.
func BenchmarkPlainText(b *testing.B) {
	notes := loadNotes(b)
	var n int64
	for _, s := range notes {
		n += int64(len(s))
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, s := range notes {
			if _, err := PlainText(s, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// hubNotes reads the Markdown notes of the obsidian-hub vault in ../shared,
// or skips when it is absent.
func hubNotes(b *testing.B) [][]byte {
	root := filepath.Join("../../../shared/vaults", "obsidian-hub")
	var notes [][]byte
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		src, err := os.ReadFile(p)
		notes = append(notes, src)
		return err
	})
	if err != nil || len(notes) == 0 {
		b.Skipf("vault obsidian-hub not available: %v", err)
	}
	return notes
}

// BenchmarkMarkdownObsidianHub chunks every note of the obsidian-hub vault
// (6,571 notes, 14.8 MB) once per iteration.
func BenchmarkMarkdownObsidianHub(b *testing.B) { benchMarkdown(b, hubNotes(b)) }
