package blevepeer

import (
	"fmt"
	"os"
	"testing"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/peer/peertest"
)

func TestMain(m *testing.M) {
	peertest.MainIfChild(func(engine, dir string) (peer.Engine, bool, error) {
		if engine != peer.EngineBleve {
			return nil, false, fmt.Errorf("not bleve: %s", engine)
		}
		return Open(dir)
	})
	os.Exit(m.Run())
}

func TestContract(t *testing.T) { peertest.Run(t, peer.EngineBleve) }

func TestStemming(t *testing.T) {
	p := peertest.Start(t, peer.EngineBleve, t.TempDir(), peer.Source{Vault: peertest.Vault(t)})
	if got := peertest.Search(t, p, "snapshot", 10); len(got) == 0 || got[0] != "Restic Backups.md" {
		t.Errorf("snapshot: %q", got)
	}
	// English stop words alone match nothing.
	if got := peertest.Search(t, p, "the and of", 10); len(got) != 0 {
		t.Errorf("stop words: %q", got)
	}
}
