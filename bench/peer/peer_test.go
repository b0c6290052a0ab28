package peer

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// memEngine is an in-memory Engine for the serving loop's tests: a
// document matches when its body contains the query.
type memEngine struct{ docs map[string]Doc }

func (m *memEngine) Build(each func(func(Doc) error) error) error {
	return each(func(d Doc) error { m.docs[d.ID] = d; return nil })
}
func (m *memEngine) Put(d Doc) error        { m.docs[d.ID] = d; return nil }
func (m *memEngine) Delete(id string) error { delete(m.docs, id); return nil }
func (m *memEngine) Search(q string, k int) ([]string, error) {
	if q == "fail" {
		return nil, errors.New("engine failure")
	}
	var out []string
	for id, d := range m.docs {
		if strings.Contains(d.Body, q) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out[:min(k, len(out))], nil
}
func (m *memEngine) Count() (int, error) { return len(m.docs), nil }
func (m *memEngine) Close() error        { return nil }

func memOpener(engines map[string]*memEngine) Opener {
	return func(engine, dir string) (Engine, bool, error) {
		if e, ok := engines[dir]; ok {
			return e, true, nil
		}
		e := &memEngine{docs: map[string]Doc{}}
		engines[dir] = e
		return e, false, nil
	}
}

func vaultDir() string { return filepath.Join("testdata", "vault") }

func TestVaultDocs(t *testing.T) {
	var ids []string
	err := VaultDocs(vaultDir())(func(d Doc) error {
		ids = append(ids, d.ID+" | "+d.Title)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Restic Backups.md | Restic Backups", "journal/2024-03-14.md | 2024-03-14",
		"projects/ZFS Pool.md | ZFS Pool", "日本/東京のラーメン.md | 東京のラーメン"}
	if !slices.Equal(ids, want) {
		t.Errorf("documents %q, want %q", ids, want)
	}
	stop := errors.New("stop")
	if err := VaultDocs(vaultDir())(func(Doc) error { return stop }); err != stop {
		t.Errorf("a callback's error: %v", err)
	}
	for rel, ok := range map[string]bool{"a.md": true, "x/y.MARKDOWN": true, "t.txt": true, "a.pdf": false,
		".obsidian/a.md": false, "x/node_modules/a.md": false, "x/.git/a.md": false, ".hidden.md": true} {
		if IsNote(rel) != ok {
			t.Errorf("IsNote(%q) = %v", rel, !ok)
		}
	}
	if _, ok, err := VaultDoc(vaultDir(), "gone.md"); ok || err != nil {
		t.Errorf("missing note: %v, %v", ok, err)
	}
	for _, bad := range []string{"../x.md", "/etc/x.md", "a.pdf"} {
		if _, _, err := VaultDoc(vaultDir(), bad); err == nil {
			t.Errorf("VaultDoc(%q) was accepted", bad)
		}
	}
}

func TestBEIRDocs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "corpus.jsonl")
	os.WriteFile(good, []byte(`{"_id":"d1","title":"T","text":"one"}`+"\n\n"+`{"_id":"d2","text":"two"}`), 0o644)
	var got []Doc
	if err := BEIRDocs(good)(func(d Doc) error { got = append(got, d); return nil }); err != nil {
		t.Fatal(err)
	}
	if want := []Doc{{"d1", "T", "one"}, {"d2", "", "two"}}; !slices.Equal(got, want) {
		t.Errorf("docs %+v, want %+v", got, want)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"_id":"d1"}`+"\n"+`{"_id":`+"\n"), 0o644)
	if err := BEIRDocs(bad)(func(Doc) error { return nil }); err == nil || !strings.HasPrefix(err.Error(), bad+":2: ") {
		t.Errorf("truncated line: %v", err)
	}
	if err := BEIRDocs(filepath.Join(dir, "none"))(func(Doc) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing corpus: %v", err)
	}
}

// TestPeerMain runs Main in-process over a vault and a BEIR corpus: the
// ready line, answers, errors per request, and reopening.
func TestPeerMain(t *testing.T) {
	engines := map[string]*memEngine{}
	run := func(args []string, in string) (int, []string, string) {
		var out, errb bytes.Buffer
		code := Main(args, memOpener(engines), strings.NewReader(in), &out, &errb)
		return code, strings.Split(strings.TrimSpace(out.String()), "\n"), errb.String()
	}
	index := t.TempDir()
	code, lines, stderr := run([]string{"-engine", "fts5", "-index", index, "-vault", vaultDir()},
		`{"q":"backup","k":10}`+"\n"+`not json`+"\n"+`{"op":"fly"}`+"\n"+`{"q":"fail"}`+"\n"+`{"op":"update","path":"gone.md"}`+"\n"+`{"q":"Scrub"}`+"\n")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var ready Ready
	json.Unmarshal([]byte(lines[0]), &ready)
	if ready.Engine != "fts5" || ready.Docs != 4 || ready.Opened {
		t.Errorf("ready %+v", ready)
	}
	wants := []string{`"ids":["Restic Backups.md","journal/2024-03-14.md"]`, `"error":"bad request: `, `"error":"unknown op \"fly\"`,
		`"error":"engine failure"`, `{"took_ms":`, `"ids":["projects/ZFS Pool.md"]`}
	if len(lines) != len(wants)+1 {
		t.Fatalf("lines %q", lines)
	}
	for i, want := range wants {
		if !strings.Contains(lines[i+1], want) {
			t.Errorf("answer %d: %s, want it to contain %s", i+1, lines[i+1], want)
		}
	}

	// The same index directory is opened, not rebuilt.
	if code, lines, _ = run([]string{"-engine", "fts5", "-index", index, "-vault", vaultDir()}, ""); code != 0 || !strings.Contains(lines[0], `"opened":true`) {
		t.Errorf("reopen: %d %q", code, lines)
	}

	corpus := filepath.Join(t.TempDir(), "corpus.jsonl")
	os.WriteFile(corpus, []byte(`{"_id":"d1","text":"alpha"}`+"\n"), 0o644)
	code, lines, _ = run([]string{"-engine", "bleve", "-index", t.TempDir(), "-beir", corpus}, `{"q":"alpha"}`+"\n"+`{"op":"update","path":"d1"}`+"\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[1], `"ids":["d1"]`) || !strings.Contains(lines[2], "not built from a vault") {
		t.Errorf("beir: %d %q", code, lines)
	}

	for _, args := range [][]string{
		{"-engine", "fts5", "-vault", vaultDir()},
		{"-engine", "fts5", "-index", index},
		{"-engine", "lucene", "-index", index, "-vault", vaultDir()},
		{"-engine", "fts5", "-index", index, "-vault", vaultDir(), "-beir", corpus},
	} {
		if code, _, stderr := run(args, ""); code != 2 || !strings.Contains(stderr, "usage: ragd-peer") {
			t.Errorf("%q: exit %d, %s", args, code, stderr)
		}
	}
	code, lines, stderr = run([]string{"-engine", "fts5", "-index", t.TempDir(), "-vault", filepath.Join(t.TempDir(), "none")}, "")
	if code != 1 || !strings.Contains(lines[0], `"error":"build: `) || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing vault: %d %q %s", code, lines, stderr)
	}
}
