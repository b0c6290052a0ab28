package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"
)

// FuzzParse checks that Parse never panics, that every error it returns is
// a non-empty Errors list of non-empty messages, and that a successful
// result has unique vault names and usable patterns.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"[daemon]\nsocket = \"~/run/ragd.sock\"\ndata_dir = \".ragd-data\"\nlog_level = \"info\"\n",
		"[index]\nchunk_chars = 1200\nchunk_overlap = 150\nparent_chars = 4000\nbm25_k1 = 1.2\nbm25_b = 0.75\ntitle_weight = 2.0\nheading_weight = 1.5\nworkers = 0\n",
		"[[vault]]\nname = \"notes\"\npath = \"v\"\ninclude = [\"**/*.md\", \"**/*.markdown\", \"**/*.txt\"]\nexclude = [\".obsidian/**\", \"drafts/**\"]\nmax_file_mb = 10\n",
		"[[vault]]\nname = \"a\"\npath = \"v\"\n[[vault]]\nname = \"a\"\npath = \"v\"\n",
		"vault = [{name = \"a\", path = \"v\"}, {name = \"b\", path = \"~\"}]\n",
		"[[vault]]\nname = 'x'\npath = 'v'\n[vault.sub]\nk = 1\n[[vault.deep]]\n",
		"[vault]\nname = 'a'\n",
		"[[vault]]\nmax_file_mb = \"ten\"\ninclude = \"*.md\"\n",
		"[[vault]]\nname = 'b'\npath = 'v'\nexclude = [\n  '[bad',\n  42,\n]\n",
		"[index]\nchunk_chars = 10\nchunk_overlap = 5\nbm25_b = nan\nbm25_k1 = -inf\nworkers = 1e3\n",
		"[daemon\n",
		"a = \"\"\"\n[[vault]]\n\"\"\"\n'q.k' = { x = [1, {y = 2}] }\n",
		"\ufeff[daemon]\r\nlog_level = 'DEBUG'\r\n",
		"daemon.socket = '/tmp/x.sock'\nindex.workers = 2\n",
		"[[vault]]\nname = \"..\"\npath = \"file.txt\"\n[[vault]]\nname = \"c d\"\npath = \"$HOME\"\n",
		"\"\\u0041\" = [[1, 2], [{b = 'x'}]]\n'lit.key'.\"q\" = \"\"\"a\"\"\"\"\nodt = 1979-05-27 07:32:00Z\n[[x.y]]\n[x.y.z]\n[[x.y]]\n",
		"t = {\n  a = 1, # comment\n  b = [\n    \"c\",\n  ],\n}\n",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "v"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAllKeysHaveLines(t, data)
		cfg, err := Parse("ragd.toml", data, dir)
		if err != nil {
			if cfg != nil {
				t.Errorf("config returned along with error")
			}
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error is not a non-empty Errors: %#v", err)
			}
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			for _, e := range es {
				if e == nil || e.Msg == "" || e.File != "ragd.toml" || e.Line < 0 {
					t.Fatalf("bad error %#v", e)
				}
			}
			return
		}
		seen := map[string]bool{}
		for _, v := range cfg.Vaults {
			if v.Name == "" || seen[v.Name] {
				t.Fatalf("empty or duplicate vault name %q", v.Name)
			}
			seen[v.Name] = true
			if !filepath.IsAbs(v.Path) || v.MaxFileBytes() <= 0 || len(v.Include) == 0 {
				t.Fatalf("bad vault %+v", v)
			}
			v.Match("notes/a.md")
			v.Match(".obsidian/x.md")
			v.ExcludedDir("a/b")
		}
		ix := cfg.Index
		if ix.ChunkChars <= 0 || 2*ix.ChunkOverlap >= ix.ChunkChars || ix.ParentChars < ix.ChunkChars || ix.B < 0 || ix.B > 1 || ix.K1 < 0 || ix.Workers <= 0 {
			t.Fatalf("invalid index settings accepted: %+v", ix)
		}
		if len(cfg.Daemon.Socket) > MaxSocketPath || cfg.Daemon.DataDir == "" {
			t.Fatalf("invalid daemon settings accepted: %+v", cfg.Daemon)
		}
	})
}

// checkAllKeysHaveLines decodes data and checks that the position scanner
// found a line for every key and array element in it.
func checkAllKeysHaveLines(t *testing.T, data []byte) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return
	}
	pos := scanPositions(data)
	lines := bytes.Split(data, []byte("\n"))
	var walk func(key, seg string, val any)
	walk = func(key, seg string, val any) {
		l := pos[key]
		if l < 1 || l > len(lines) {
			t.Fatalf("no line for %s (got %d)", key, l)
		}
		// A bare key is spelled out on its line (unless written with escapes).
		if fmtSeg(seg) == seg && !bytes.Contains(lines[l-1], []byte(seg)) && !bytes.Contains(lines[l-1], []byte(`\`)) {
			t.Fatalf("line %d of %s is %q", l, key, lines[l-1])
		}
		switch x := val.(type) {
		case map[string]any:
			for k, v := range x {
				walk(keyJoin(key, k), k, v)
			}
		case []map[string]any:
			for i, v := range x {
				walk(keyIndex(key, i), "", v)
			}
		case []any:
			for i, v := range x {
				walk(keyIndex(key, i), "", v)
			}
		}
	}
	for k, v := range raw {
		walk(keyJoin("", k), k, v)
	}
}
