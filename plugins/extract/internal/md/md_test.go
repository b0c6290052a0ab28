package md

import (
	"slices"
	"testing"
)

func TestEscapeLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain":         "plain",
		"  indented":    "indented",
		"# h":           `\# h`,
		"#tag":          `\#tag`,
		"> q":           `\> q`,
		"- item":        `\- item`,
		"-x":            "-x",
		"---":           `\---`,
		"- - -":         `\- - -`,
		"===":           `\===`,
		"=x":            "=x",
		"* star":        `\* star`,
		"**bold**":      `\**bold**`,
		"+ plus":        `\+ plus`,
		"```go":         "\\```go",
		"~~~":           `\~~~`,
		"1. one":        `1\. one`,
		"12) twelve":    `12\) twelve`,
		"1.5 is a num":  "1.5 is a num",
		"2024. A year.": `2024\. A year.`,
		"<div>":         `\<div>`,
		"| a | b |":     `\| a | b |`,
		"":              "",
	} {
		if got := EscapeLine(in); got != want {
			t.Errorf("EscapeLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\rc":     "a\nb\nc",
		"x\x00y\x1bz":   "xyz",
		"tab\tok\n":     "tab\tok\n",
		"bad \xff utf8": "bad \uFFFD utf8",
		"page\fbreak":   "page\nbreak",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTableAndFence(t *testing.T) {
	got := Table([][]string{{"a", "b|c"}, {"1"}, {"x\ny", "2", "3"}})
	want := []string{"| a | b\\|c |  |", "| --- | --- | --- |", "| 1 |  |  |", "| x y | 2 | 3 |"}
	if !slices.Equal(got, want) {
		t.Errorf("Table = %q", got)
	}
	if Table([][]string{{" ", ""}}) != nil {
		t.Error("empty table rendered")
	}
	if f := Fence("a\n  ````\nb"); f != "`````" {
		t.Errorf("Fence = %q", f)
	}
	if h := Heading(9, " a\n b "); h != "###### a b" {
		t.Errorf("Heading = %q", h)
	}
}

func TestWriter(t *testing.T) {
	var w Writer
	w.Block("para")
	w.Push("- ", "  ")
	w.Block("item", "more")
	w.Block("second para")
	w.Pop()
	w.Push("> ", "> ")
	w.Block("q1")
	w.Block("q2")
	w.Pop()
	want := "para\n\n- item\n  more\n\n  second para\n\n> q1\n>\n> q2\n"
	if w.String() != want {
		t.Errorf("got %q, want %q", w.String(), want)
	}
}
