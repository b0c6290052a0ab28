package doctext

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

func TestSlice(t *testing.T) {
	long := strings.Repeat("é", MaxBytes) // 2 MiB on one line
	tests := []struct {
		name       string
		text       string
		from, to   int
		wantText   string
		wantEnd    int
		wantNext   int // 0: not truncated
		wantLines  int
		wantErrMsg string
	}{
		{name: "whole", text: "a\nb\nc\n", from: 1, wantText: "a\nb\nc\n", wantEnd: 3, wantLines: 3},
		{name: "no final newline", text: "a\nb\r\nc", from: 2, wantText: "b\r\nc", wantEnd: 3, wantLines: 3},
		{name: "range", text: "a\nb\nc\nd\n", from: 2, to: 3, wantText: "b\nc\n", wantEnd: 3, wantLines: 4},
		{name: "end past the end", text: "a\nb\n", from: 2, to: 10, wantText: "b\n", wantEnd: 2, wantLines: 2},
		{name: "empty", text: "", from: 1, wantText: "", wantEnd: 0},
		{name: "line limit", text: numbered("l", 1, 2500), from: 1, wantText: numbered("l", 1, 2000), wantEnd: 2000, wantNext: 2001, wantLines: 2500},
		{name: "line limit from the middle", text: numbered("l", 1, 2500), from: 400, wantText: numbered("l", 400, 2399), wantEnd: 2399, wantNext: 2400, wantLines: 2500},
		{name: "exactly the line limit", text: numbered("l", 1, 2000), from: 1, wantText: numbered("l", 1, 2000), wantEnd: 2000, wantLines: 2000},
		{
			// 1000-byte lines: 1048 fit in 1 MiB; the 1049th is left out whole.
			name: "byte limit", text: strings.Repeat(strings.Repeat("x", 999)+"\n", 1100), from: 1,
			wantText: strings.Repeat(strings.Repeat("x", 999)+"\n", 1048), wantEnd: 1048, wantNext: 1049, wantLines: 1100,
		},
		{
			// One line over the limit is cut on a rune boundary.
			name: "one huge line", text: "a\n" + long + "\nb\n", from: 2,
			wantText: long[:MaxBytes], wantEnd: 2, wantNext: 3, wantLines: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out Text
			slice(&out, []byte(tt.text), tt.from, tt.to)
			if out.Text != tt.wantText {
				t.Errorf("text (%d bytes) %.80q, want (%d bytes) %.80q", len(out.Text), out.Text, len(tt.wantText), tt.wantText)
			}
			if out.LineStart != tt.from || out.LineEnd != tt.wantEnd || out.Truncated != (tt.wantNext != 0) ||
				out.NextLine != tt.wantNext || out.Lines != tt.wantLines {
				t.Errorf("lines %d-%d of %d, truncated %v next %d; want %d-%d of %d next %d",
					out.LineStart, out.LineEnd, out.Lines, out.Truncated, out.NextLine, tt.from, tt.wantEnd, tt.wantLines, tt.wantNext)
			}
		})
	}
}

// Read: a text file as it is, an extracted file as its extraction (lines
// and pages of the extracted text), staleness, and the refusals.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	write := func(rel, body string) {
		p := filepath.Join(vault, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("note.md", "# Note\nline 2\nline 3\n")
	write("doc.pdf", "%PDF-1.4 binary \x00 stuff")
	if err := os.WriteFile(filepath.Join(dir, "secret.md"), []byte("TOP SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret.md"), filepath.Join(vault, "escape.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(vault, "note.md"), filepath.Join(vault, "inside.md")); err != nil {
		t.Fatal(err)
	}

	got, err := Read(Request{Root: vault, Rel: "note.md", From: 2, To: 3})
	if err != nil || got.Text != "line 2\nline 3\n" || got.Lines != 3 || got.Extracted || got.Stale {
		t.Errorf("note.md: %+v, %v", got, err)
	}
	got, err = Read(Request{Root: vault, Rel: "inside.md", IndexedHash: "0000"})
	if err != nil || got.Text != "# Note\nline 2\nline 3\n" || !got.Stale {
		t.Errorf("a link inside the vault, changed since indexing: %+v, %v", got, err)
	}

	var gotSHA string
	extract := func(rel, sha string, data []byte) (*Extracted, error) {
		gotSHA = sha
		return &Extracted{Text: "page one\nstill one\npage two\n", Pages: []int{1, 3}}, nil
	}
	got, err = Read(Request{Root: vault, Rel: "doc.pdf", Extract: extract, From: 3})
	if err != nil || got.Text != "page two\n" || !got.Extracted || len(got.Pages) != 2 || PageOf(got.Pages, got.LineStart) != 2 {
		t.Errorf("doc.pdf: %+v, %v", got, err)
	}
	if len(gotSHA) != 64 {
		t.Errorf("extractor got sha %q", gotSHA)
	}

	for _, tt := range []struct {
		req  Request
		want error
		msg  string
	}{
		{Request{Root: vault, Rel: "../secret.md"}, ErrRefused, "leads out of the vault"},
		{Request{Root: vault, Rel: "escape.md"}, ErrRefused, "symbolic link that leads out"},
		{Request{Root: vault, Rel: "missing.md"}, ErrNotFound, "missing.md"},
		{Request{Root: vault, Rel: "doc.pdf"}, ErrRefused, "binary"},
		{Request{Root: vault, Rel: "note.md", From: 9}, ErrRange, "note.md has 3 lines"},
		{Request{Root: vault, Rel: "note.md", From: 3, To: 2}, ErrRange, "lines 3 to 2"},
	} {
		got, err := Read(tt.req)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: %v, want %v (%q)", tt.req.Rel, err, tt.want, tt.msg)
		}
		if got != nil && strings.Contains(got.Text, "SECRET") {
			t.Errorf("%s leaked the secret", tt.req.Rel)
		}
	}
}
