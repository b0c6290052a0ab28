package fts5

import (
	"fmt"
	"os"
	"testing"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/peer/peertest"
)

func TestMain(m *testing.M) {
	peertest.MainIfChild(func(engine, dir string) (peer.Engine, bool, error) {
		switch engine {
		case peer.EngineFTS5:
			return Open(dir, Porter)
		case peer.EngineFTS5Trigram:
			return Open(dir, Trigram)
		}
		return nil, false, fmt.Errorf("not an FTS5 engine: %s", engine)
	})
	os.Exit(m.Run())
}

func TestContractPorter(t *testing.T)  { peertest.Run(t, peer.EngineFTS5) }
func TestContractTrigram(t *testing.T) { peertest.Run(t, peer.EngineFTS5Trigram) }

// TestAnalysis checks what each tokenizer finds: stems and folded accents
// with porter, CJK substrings with trigram.
func TestAnalysis(t *testing.T) {
	vault := peertest.Vault(t)
	os.WriteFile(vault+"/Café.md", []byte("Un café naïve à München.\n"), 0o644)
	p := peertest.Start(t, peer.EngineFTS5, t.TempDir(), peer.Source{Vault: vault})
	for q, want := range map[string]string{
		"snapshot":       "Restic Backups.md", // snapshots, stemmed
		"mirror disk":    "projects/ZFS Pool.md",
		"cafe naive":     "Café.md", // diacritics removed
		"Restic Backups": "Restic Backups.md",
	} {
		if got := peertest.Search(t, p, q, 10); len(got) == 0 || got[0] != want {
			t.Errorf("porter %q: %q, want %s first", q, got, want)
		}
	}
	// unicode61 keeps a run of CJK as one token: a phrase inside it is not
	// found.
	if got := peertest.Search(t, p, "醤油ラーメン", 10); len(got) != 0 {
		t.Errorf("porter found a CJK substring: %q", got)
	}

	tri := peertest.Start(t, peer.EngineFTS5Trigram, t.TempDir(), peer.Source{Vault: vault})
	for q, want := range map[string]string{
		"醤油ラーメン": "日本/東京のラーメン.md",
		"神保町 醤油": "日本/東京のラーメン.md",
		"zpool":  "projects/ZFS Pool.md",
		"東京のラーメン 一番おいしい": "日本/東京のラーメン.md",
		"ラーメン醤油":         "日本/東京のラーメン.md", // reordered
	} {
		if got := peertest.Search(t, tri, q, 10); len(got) == 0 || got[0] != want {
			t.Errorf("trigram %q: %q, want %s first", q, got, want)
		}
	}
	// Runs under three characters cannot be matched by a trigram index.
	if got := peertest.Search(t, tri, "東京 の", 10); len(got) != 0 {
		t.Errorf("trigram, short runs: %q", got)
	}
}

func TestMatch(t *testing.T) {
	for _, tt := range []struct{ q, tokenizer, want string }{
		{"how do I pin a tab?", Porter, `"how" OR "do" OR "I" OR "pin" OR "a" OR "tab"`},
		{`"AND" OR NEAR(x) title:y* -z ^w`, Porter, `"AND" OR "OR" OR "NEAR" OR "x" OR "title" OR "y" OR "z" OR "w"`},
		{"café's covid-19", Porter, `"café" OR "s" OR "covid" OR "19"`},
		{"  ", Porter, ""},
		{"東京の 醤油ラーメン、神保町", Trigram, `"東京の" OR "醤油ラ" OR "油ラー" OR "ラーメ" OR "ーメン" OR "神保町"`},
		{`ab "quoted" x"y z`, Trigram, `"quo" OR "uot" OR "ote" OR "ted"`},
		{`abc"def`, Trigram, `"abc" OR "def"`},
		{`a+b=c`, Trigram, `"a+b" OR "+b=" OR "b=c"`},
		{`x+"yz`, Trigram, ""}, // runs of two characters
	} {
		if got := Match(tt.q, tt.tokenizer); got != tt.want {
			t.Errorf("Match(%q, %s) = %s, want %s", tt.q, tt.tokenizer, got, tt.want)
		}
	}
}

func TestOpenOtherTokenizer(t *testing.T) {
	dir := t.TempDir()
	e, _, err := Open(dir, Porter)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	if _, _, err := Open(dir, Trigram); err == nil {
		t.Error("a porter index opened as trigram")
	}
	if _, _, err := Open(t.TempDir(), "icu"); err == nil {
		t.Error("an unknown tokenizer was accepted")
	}
}
