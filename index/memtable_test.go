package index_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index"
)

// A store whose memtable log was written with larger memtables than this
// build's (an earlier ragd, stopped by a crash) opens, with the log's
// writes replayed: Badger replays a log into a memtable of the size it is
// opened with, and one too small ends the process.
func TestOpenReplaysALargerMemtableLog(t *testing.T) {
	live := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(live).WithLogger(nil).WithMemTableSize(16 << 20))
	if err != nil {
		t.Fatal(err)
	}
	// 12 MB in the memtable (values under Badger's default value
	// threshold stay in it), in transactions under its batch limit: more
	// than an 8 MB memtable has room for.
	val := bytes.Repeat([]byte("v"), 8<<10)
	for b := range 20 {
		err := db.Update(func(txn *badger.Txn) error {
			for i := range 75 {
				if err := txn.Set(fmt.Appendf(nil, "zz-test/%02d/%03d", b, i), val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// What a crash leaves: the files as they are while the database is
	// open (the memtable's log is written through a shared mapping, so a
	// copy reads what a restart would).
	crashed := filepath.Join(t.TempDir(), "index")
	copyDir(t, live, crashed)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	mems, _ := filepath.Glob(filepath.Join(crashed, "*.mem"))
	if len(mems) == 0 {
		t.Fatal("the copy holds no memtable log")
	}

	s, err := index.Open(index.Options{Dir: crashed})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
}
