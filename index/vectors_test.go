package index

import (
	"context"
	"testing"
)

func TestScratchChunks(t *testing.T) {
	s := openStore(t, t.TempDir())
	defer s.Close()
	files := vaultFiles(t, t.TempDir(), map[string]string{
		"a.md": "---\ntags: [projects/ragd, Homelab]\n---\n# Garden\n\nTomatoes need water. #todo\n\n## Pests\n\nAphids on roses.\n",
		"b.md": "# Bread\n\nKnead the dough.\n",
	})
	if _, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, files); err != nil {
		t.Fatal(err)
	}
	docs, _ := s.Documents("v")
	for _, d := range docs {
		t.Logf("%s tags=%q chunks=%d parents=%d", d.Path, d.Tags, d.Chunks, d.Parents)
		for o := 0; o < d.Chunks; o++ {
			cs, _ := s.Chunks([]ChunkRef{{d.ID, uint32(o)}})
			t.Logf("  %d %d-%d %q %q", o, cs[0].LineStart, cs[0].LineEnd, cs[0].Heading, cs[0].Text)
		}
	}
}
