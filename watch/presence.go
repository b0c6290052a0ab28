package watch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// RootState is what a presence check sees of a vault root: which directory
// is there (device and inode), whether it is a mount point, when its
// entries last changed and whether it has any.
type RootState struct {
	Dev, Ino   uint64
	MountPoint bool // on another device than its parent
	ModTime    time.Time
	Empty      bool
}

// StatRoot looks at a vault root without walking it. A missing root, or
// one that is not a directory, is ErrRootMissing.
func StatRoot(root string) (RootState, error) {
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		return RootState{}, fmt.Errorf("%w: %s", ErrRootMissing, root)
	}
	st := RootState{ModTime: fi.ModTime()}
	st.Dev, st.Ino = devIno(fi)
	if pfi, err := os.Stat(filepath.Dir(root)); err == nil {
		pdev, _ := devIno(pfi)
		st.MountPoint = pdev != st.Dev
	}
	f, err := os.Open(root)
	if err != nil {
		return st, nil // unreadable: not known to be empty
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	st.Empty = errors.Is(err, io.EOF)
	return st, nil
}

// SameDir reports whether a and b are the same directory (device and inode).
func (a RootState) SameDir(b RootState) bool { return a.Dev == b.Dev && a.Ino == b.Ino }

// Verdict is the outcome of Judge.
type Verdict int

const (
	// Present: the pass may add, update and remove documents.
	Present Verdict = iota
	// Vanished: the vault is taken offline; nothing is changed.
	Vanished
	// HoldDeletions: new and changed files are indexed, but nothing is
	// removed until the deletions are confirmed or the files return.
	HoldDeletions
)

// Thresholds of Judge.
const (
	// MassDeletionFraction: a pass that would remove more than this share
	// of a vault's documents is held.
	MassDeletionFraction = 0.5
	// MassDeletionMinDocuments: vaults with fewer documents are never held
	// for a partial deletion (only for vanishing entirely).
	MassDeletionMinDocuments = 10
)

// Judge decides whether an indexing pass that found found files in a vault
// of which stored documents are indexed may remove what it did not find.
// removals is how many stored documents the pass would remove (for a whole
// vault at least stored-found). Files are the truth, but a folder that is
// suddenly empty is far more often an unmounted drive or a sync client's
// hiccup than a user deleting every note: a vault that had documents and
// shows none is taken offline, and one that would lose more than half of
// them at once holds those deletions until they are confirmed.
func Judge(stored, found, removals int) (Verdict, string) {
	switch {
	case stored > 0 && found == 0:
		return Vanished, fmt.Sprintf("the vault's folder holds no files but %d documents are indexed from it "+
			"(an unmounted drive?); keeping them until the files return", stored)
	case stored >= MassDeletionMinDocuments && float64(removals) > MassDeletionFraction*float64(stored):
		return HoldDeletions, fmt.Sprintf("%d of %d indexed documents are no longer on disk; "+
			"their removal is held until the files return or it is confirmed", removals, stored)
	}
	return Present, ""
}
