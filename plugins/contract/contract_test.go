package contract_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/contract"
	"github.com/ragd/ragd/plugins/host"
	"github.com/ragd/ragd/plugins/internal/testplugin"
)

func TestMain(m *testing.M) {
	if testplugin.Run() {
		return
	}
	os.Exit(m.Run())
}

// startFakes runs the test backends as plugin processes (this test binary
// re-executed) through the host.
func startFakes(t *testing.T) *host.Manager {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var specs []host.Spec
	for _, kind := range []string{plugins.KindEmbedder, plugins.KindExtractor, plugins.KindReranker} {
		specs = append(specs, host.Spec{
			Name: "fake-" + kind, Kind: kind, Command: exe,
			Env:     map[string]string{testplugin.EnvKind: kind},
			Options: plugins.Options{"max_batch": 0},
		})
	}
	m, err := host.New(specs, host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Status() {
		if st.State != "running" {
			t.Fatalf("%s: %s: %s", st.Name, st.State, st.LastError)
		}
	}
	return m
}

func TestFakeBackendsThroughHost(t *testing.T) {
	m := startFakes(t)
	t.Run("embedder", func(t *testing.T) {
		h, err := m.Embedder("fake-embedder")
		if err != nil {
			t.Fatal(err)
		}
		contract.TestEmbedder(t, h)
	})
	t.Run("extractor", func(t *testing.T) {
		h, err := m.Extractor("fake-extractor")
		if err != nil {
			t.Fatal(err)
		}
		contract.TestExtractor(t, h, contract.Sample{
			Path:         "notes/a.txt",
			Data:         []byte("A title\nAlice met Bob.\n"),
			WantTitle:    "A title",
			WantContains: []string{"Alice met Bob."},
			WantLines:    2,
		})
	})
	t.Run("reranker", func(t *testing.T) {
		h, err := m.Reranker("fake-reranker")
		if err != nil {
			t.Fatal(err)
		}
		contract.TestReranker(t, h)
	})
}

// The suites also take in-process implementations.
func TestFakeBackendsInProcess(t *testing.T) {
	contract.TestEmbedder(t, testplugin.New(plugins.KindEmbedder).(plugins.Embedder))
	contract.TestReranker(t, testplugin.New(plugins.KindReranker).(plugins.Reranker))
}
