//go:build linux

package index_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/ragd/ragd/index/indextest"
)

// TrimMapped drops the resident pages of the index's mapped files and the
// index reads on as before: the pages come back from the page cache.
func TestTrimMappedKeepsTheIndexReadable(t *testing.T) {
	notes := map[string]string{}
	for i := range 200 {
		notes["n"+strconv.Itoa(i)+".md"] = "# Note " + strconv.Itoa(i) + "\n\nThe quokka number " + strconv.Itoa(i) + " eats leaves and grass in the afternoon.\n"
	}
	st := indextest.Open(t, t.TempDir())
	defer st.Close()
	indextest.SyncMap(t, st, t.TempDir(), notes)
	if err := st.Settle(context.Background()); err != nil { // the segments to mapped files
		t.Fatal(err)
	}
	before := indextest.Search(t, st, "quokka")
	if len(before) == 0 {
		t.Fatal("nothing found before the trim")
	}
	n, err := st.TrimMapped()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		maps, _ := os.ReadFile("/proc/self/maps")
		t.Fatalf("no mapping of the index advised; maps:\n%s", maps)
	}
	if after := indextest.Search(t, st, "quokka"); !slices.Equal(after, before) {
		t.Fatalf("after the trim %v, before %v", after, before)
	}
	// Writing after a trim works as well.
	indextest.SyncMap(t, st, t.TempDir(), map[string]string{"late.md": "# Late\n\nA wombat digs.\n"})
	if got := indextest.Search(t, st, "wombat"); len(got) != 1 {
		t.Fatalf("wombat after the trim: %v", got)
	}
}
