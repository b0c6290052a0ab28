package builtin_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/builtin"
	"github.com/ragd/ragd/plugins/contract"
	"github.com/ragd/ragd/plugins/host"
	"github.com/ragd/ragd/plugins/internal/testplugin"
)

func init() {
	builtin.Register("fake-embedder", plugins.KindEmbedder, func() any { return testplugin.New(plugins.KindEmbedder) })
	builtin.Register("fake-reranker", plugins.KindReranker, func() any { return testplugin.New(plugins.KindReranker) })
	builtin.RegisterInProcess("fake-inprocess", plugins.KindReranker, func() any { return testplugin.New(plugins.KindReranker) })
}

// TestMain is also `ragd plugin NAME`: the host starts built-ins as the
// running executable with the arguments "plugin NAME".
func TestMain(m *testing.M) {
	if len(os.Args) == 3 && os.Args[1] == "plugin" {
		if err := builtin.Main(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "ragd plugin:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestRegistry(t *testing.T) {
	kind, f, ok := builtin.Lookup("fake-reranker")
	if !ok || kind != plugins.KindReranker || f == nil {
		t.Fatalf("Lookup = %q, %v", kind, ok)
	}
	if _, _, ok := builtin.Lookup("nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	if builtin.InProcess("fake-inprocess") == nil || builtin.InProcess("fake-reranker") != nil || builtin.InProcess("nope") != nil {
		t.Error("InProcess gives the factory of exactly the built-ins registered in-process")
	}
	if got := builtin.Names(); !slices.Equal(got, []string{"fake-embedder", "fake-inprocess", "fake-reranker"}) {
		t.Errorf("Names = %v", got)
	}
	if err := builtin.Main("nope"); err == nil || !strings.Contains(err.Error(), "fake-embedder, fake-inprocess, fake-reranker") {
		t.Errorf("Main(unknown) = %v", err)
	}
	if err := builtin.Main("fake-embedder"); err == nil || !strings.Contains(err.Error(), "not by hand") {
		t.Errorf("Main outside a host = %v", err)
	}
	for _, bad := range []func(){
		func() { builtin.Register("fake-embedder", plugins.KindEmbedder, func() any { return nil }) },
		func() { builtin.Register("x", "summarizer", func() any { return nil }) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Register did not panic")
				}
			}()
			bad()
		}()
	}
}

// Built-ins started by the host as "<this executable> plugin NAME", or
// called in the host's process; one registered in-process is still served
// by `plugin NAME` when its spec asks for a subprocess.
func TestBuiltinsThroughHost(t *testing.T) {
	m, err := host.New([]host.Spec{
		{Name: "fake-embedder", Kind: plugins.KindEmbedder, Builtin: true},
		{Name: "fake-reranker", Kind: plugins.KindReranker, Builtin: true},
		{Name: "fake-inprocess", Kind: plugins.KindReranker, Builtin: true, InProcess: builtin.InProcess("fake-inprocess")},
		{Name: "fake-inprocess-sub", Kind: plugins.KindReranker, Builtin: true, Args: []string{"plugin", "fake-inprocess"}},
	}, host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	for _, st := range m.Status() {
		inProcess := st.Name == "fake-inprocess"
		if st.State != ipc.PluginRunning || !st.Builtin || st.InProcess != inProcess || (st.PID == 0) != inProcess ||
			(st.Command == exe) == inProcess {
			t.Fatalf("%+v", st)
		}
	}
	e, _ := m.Embedder("fake-embedder")
	contract.TestEmbedder(t, e)
	for _, name := range []string{"fake-reranker", "fake-inprocess", "fake-inprocess-sub"} {
		t.Run(name, func(t *testing.T) {
			r, _ := m.Reranker(name)
			contract.TestReranker(t, r)
		})
	}
}
