package main

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/query/metrics"
)

// writeTemp writes content to a file named name in a fresh directory.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadQrels(t *testing.T) {
	got, err := readQrels(filepath.Join("testdata", "eval", "qrels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]metrics.Judgments{
		"q1": {"d1": 1, "d2": 2},
		"q2": {"doc/3": 0},
		"q3": {"d1": 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readQrels = %v, want %v", got, want)
	}

	// Without a header the first line is data.
	got, err = readQrels(writeTemp(t, "test.tsv", "q9\td9\t3\n"))
	if err != nil || !reflect.DeepEqual(got, map[string]metrics.Judgments{"q9": {"d9": 3}}) {
		t.Errorf("headerless: %v, %v", got, err)
	}
}

func TestReadQrelsErrors(t *testing.T) {
	bad := filepath.Join("testdata", "eval", "qrels-bad.tsv")
	_, err := readQrels(bad)
	if want := bad + ":3: want query-id<TAB>corpus-id<TAB>score"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}

	tests := []struct {
		name, content, want string
	}{
		{"too many fields", "q1\td1\t1\textra\n", ":1: want query-id<TAB>corpus-id<TAB>score"},
		{"spaces not tabs", "query-id\tcorpus-id\tscore\nq1 d1 1\n", ":2: want query-id<TAB>corpus-id<TAB>score"},
		{"score not a number", "query-id\tcorpus-id\tscore\n\nq1\td1\thigh\n", `:3: score "high": strconv.Atoi: parsing "high": invalid syntax`},
		{"header not first", "q1\td1\t1\nquery-id\tcorpus-id\tscore\n", `:2: score "score"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "test.tsv", tt.content)
			_, err := readQrels(path)
			if err == nil || err.Error() != path+tt.want && !strings.HasPrefix(err.Error(), path+tt.want) {
				t.Errorf("error = %v, want %q", err, path+tt.want)
			}
		})
	}

	if _, err := readQrels(filepath.Join(t.TempDir(), "missing.tsv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadQueries(t *testing.T) {
	qrels := map[string]metrics.Judgments{"q1": {"d1": 1}, "q2": {"d2": 1}, "q9": {"d1": 1}}
	got, err := readQueries(filepath.Join("testdata", "eval", "queries.jsonl"), qrels)
	if err != nil {
		t.Fatal(err)
	}
	want := []evalQuery{{"q1", "how long are snapshots kept"}, {"q2", "third document"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readQueries = %q, want %q", got, want)
	}

	path := writeTemp(t, "queries.jsonl", "{\"_id\":\"q1\",\"text\":\"ok\"}\n{\"_id\":\"q2\",\"text\":\n")
	if _, err := readQueries(path, qrels); err == nil || !strings.HasPrefix(err.Error(), path+":2: ") {
		t.Errorf("malformed line: %v, want an error at %s:2", err, path)
	}
}

func TestWriteCorpus(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	got, err := writeCorpus(filepath.Join("testdata", "eval", "corpus.jsonl"), vault)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"d1.md": "d1", "d2.md": "d2", "a_b_c_d.md": `a/b:c\d`}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("writeCorpus = %q, want %q", got, want)
	}
	files := map[string]string{
		"d1.md":      "# Restic Backups\n\nKeep 7 daily snapshots.\n",
		"d2.md":      "untitled body\n",
		"a_b_c_d.md": "# Odd id\n\ntext\n",
	}
	for name, content := range files {
		b, err := os.ReadFile(filepath.Join(vault, name))
		if err != nil {
			t.Error(err)
			continue
		}
		if string(b) != content {
			t.Errorf("%s = %q, want %q", name, b, content)
		}
	}
	entries, err := os.ReadDir(vault)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if want := []string{"a_b_c_d.md", "d1.md", "d2.md"}; !reflect.DeepEqual(names, want) {
		t.Errorf("vault holds %q, want %q", names, want)
	}
}

func TestWriteCorpusErrors(t *testing.T) {
	bad := filepath.Join("testdata", "eval", "corpus-bad.jsonl")
	_, err := writeCorpus(bad, filepath.Join(t.TempDir(), "vault"))
	if err == nil || !strings.HasPrefix(err.Error(), bad+":2: ") || !strings.Contains(err.Error(), "unexpected end of JSON input") {
		t.Errorf("error = %v, want one at %s:2 about the truncated JSON", err, bad)
	}

	path := writeTemp(t, "corpus.jsonl", "{\"_id\":\"d1\",\"text\":\"x\"}\n[1,2]\n")
	if _, err := writeCorpus(path, filepath.Join(t.TempDir(), "vault")); err == nil || !strings.HasPrefix(err.Error(), path+":2: ") {
		t.Errorf("non-object line: %v, want an error at %s:2", err, path)
	}

	if _, err := writeCorpus(filepath.Join(t.TempDir(), "missing.jsonl"), filepath.Join(t.TempDir(), "vault")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestFileName(t *testing.T) {
	for id, want := range map[string]string{
		"plain":      "plain",
		"a/b\\c:d":   "a_b_c_d",
		"nul\x00id":  "nul_id",
		"../escape":  ".._escape",
		"ünïcode-42": "ünïcode-42",
	} {
		if got := fileName(id); got != want {
			t.Errorf("fileName(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestReadVaultQuestions(t *testing.T) {
	got, err := readVaultQuestions(filepath.Join("testdata", "eval", "questions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	want := []vaultQuestion{
		{text: "how long do I keep snapshots", kind: "factual", files: metrics.Judgments{"Restic Backups.md": 1}},
		{text: "what broke the backup", kind: unlabelled, files: metrics.Judgments{"2024/2024-03-14.md": 1, "Restic Backups.md": 1}},
		{text: "padded question", kind: "keyword", files: metrics.Judgments{"ZFS Pool.md": 1}},
		{text: "which note links the pool", kind: unlabelled, files: metrics.Judgments{"ZFS Pool.md": 1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readVaultQuestions = %+v, want %+v", got, want)
	}
}

func TestReadVaultQuestionsErrors(t *testing.T) {
	bad := filepath.Join("testdata", "eval", "questions-bad.tsv")
	_, err := readVaultQuestions(bad)
	if want := bad + ":2: want question<TAB>path[;path…][<TAB>kind]"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}

	tests := []struct {
		name, content, want string
	}{
		{"no tab", "q\tA.md\n# c\nq B.md\n", ":3: want question<TAB>path[;path…][<TAB>kind]"},
		{"empty question", "\tA.md\n", ":1: want question<TAB>path[;path…][<TAB>kind]"},
		{"blank question", "   \tA.md\n", ":1: want question<TAB>path[;path…][<TAB>kind]"},
		{"no path", "q\t\n", ":1: want question<TAB>path[;path…][<TAB>kind]"},
		{"blank path", "q\t  \r\n", ":1: want question<TAB>path[;path…][<TAB>kind]"},
		{"blank path with a kind", "q\t \tkeyword\n", ":1: want question<TAB>path[;path…][<TAB>kind]"},
		{"only separators", "q\tA.md\nq2\t ; / ;\n", ":2: no path after the tab: want question<TAB>path[;path…][<TAB>kind]"},
		{"four columns", "q\tA.md\tkeyword\textra\n", ":1: want question<TAB>path[;path…][<TAB>kind]"},
		{"kind of two words", "q\tA.md\tknown item\n", `:1: the kind after the second tab must be one word, got "known item"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "questions.tsv", tt.content)
			_, err := readVaultQuestions(path)
			if err == nil || err.Error() != path+tt.want {
				t.Errorf("error = %v, want %q", err, path+tt.want)
			}
		})
	}
}

// TestExampleVaultQuestions checks the questions file shipped with the
// example vault parses and names files that exist.
func TestExampleVaultQuestions(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "example-vault-questions.tsv")
	if _, err := os.Stat(path); err != nil {
		t.Skip(err)
	}
	qs, err := readVaultQuestions(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) == 0 {
		t.Fatal("no questions")
	}
	for _, q := range qs {
		for f := range q.files {
			if _, err := os.Stat(filepath.Join("..", "..", "docs", "example-vault", filepath.FromSlash(f))); err != nil {
				t.Errorf("question %q: %v", q.text, err)
			}
		}
	}
}

func TestPseudoQuestions(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755)
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("# A\n\n## Sourdough starter care\n\ntext\n\n## Notes\n\n```\n## Not a heading\n```\n### One\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "b.md"), []byte("## Restic retention policy\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".obsidian", "c.md"), []byte("## Hidden heading here\n"), 0o644)
	qs, err := pseudoQuestions(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range qs {
		for p := range q.files {
			got = append(got, q.text+" → "+p)
		}
	}
	want := []string{"Restic retention policy → sub/b.md", "Sourdough starter care → a.md"}
	if !slices.Equal(got, want) {
		t.Errorf("questions %q, want %q", got, want)
	}
	if qs, _ := pseudoQuestions(dir, 1); len(qs) != 1 {
		t.Errorf("max 1: %d questions", len(qs))
	}
	if _, err := pseudoQuestions(t.TempDir(), 10); err == nil {
		t.Error("an empty vault gave questions")
	}
}
