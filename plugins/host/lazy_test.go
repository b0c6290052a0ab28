package host

import (
	"context"
	"testing"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
)

// A lazy plugin is not started by Start; its first call starts it.
func TestLazyPluginStartsOnFirstCall(t *testing.T) {
	t.Parallel()
	lazy := testSpec("lazy", plugins.KindExtractor, nil)
	lazy.Lazy = true
	m, _ := startManager(t, lazy, testSpec("eager", plugins.KindEmbedder, nil))
	if st := statusOf(t, m, "lazy"); st.State != ipc.PluginIdle || st.PID != 0 {
		t.Fatalf("lazy plugin after Start: %+v", st)
	}
	if st := statusOf(t, m, "eager"); st.State != ipc.PluginRunning {
		t.Fatalf("eager plugin after Start: %+v", st)
	}
	x, err := m.Extractor("lazy")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := x.Extract(context.Background(), plugins.ExtractRequest{Path: "a.txt", Data: []byte("Title\nbody\n")})
	if err != nil || ex.Title != "Title" {
		t.Fatalf("first call = %+v, %v", ex, err)
	}
	if st := statusOf(t, m, "lazy"); st.State != ipc.PluginRunning || st.PID == 0 || st.Calls != 1 {
		t.Fatalf("lazy plugin after its first call: %+v", st)
	}
}
