package daemon

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/watch"
)

// guardPass decides, before a pass changes the index, whether the vault is
// really there and whether the pass may remove what it did not find
// (watch.Judge). A pass over some paths that would remove documents is
// widened to the whole vault when those removals could empty the vault or
// remove more than half of it, or while removals are held, so the verdict
// is taken on the whole vault; files and paths are then the whole vault's.
func (d *Daemon) guardPass(ctx context.Context, name string, v config.Vault, paths []string, files []watch.File, rep watch.Report) (
	_ []watch.File, _ watch.Report, _ []string, _ watch.Verdict, reason string, _ error) {
	stored := d.storedDocuments(name)
	if paths != nil {
		removals := 0
		for _, p := range paths {
			if _, err := os.Lstat(filepath.Join(v.Path, filepath.FromSlash(p))); !errors.Is(err, fs.ErrNotExist) {
				continue
			}
			n, err := d.store.CountUnder(name, p)
			if err != nil {
				return nil, rep, nil, 0, "", err
			}
			removals += n
		}
		d.mu.Lock()
		held := d.vaults[name].held != nil
		d.mu.Unlock()
		if removals == 0 && !held {
			return files, rep, paths, watch.Present, "", nil
		}
		if verdict, _ := watch.Judge(stored, max(stored-removals, 0), removals); verdict == watch.Present && !held {
			return files, rep, paths, watch.Present, "", nil
		}
		all, allRep, err := d.scan(ctx, v.Path, v, nil)
		if err != nil {
			return nil, rep, nil, 0, "", err
		}
		files, rep, paths = all, allRep, nil
	}
	// What is indexed under unreadable folders is kept, so it neither
	// counts as found nor as removed.
	kept := 0
	for _, u := range rep.Unreadable {
		n, err := d.store.CountUnder(name, u.Rel)
		if err != nil {
			return nil, rep, nil, 0, "", err
		}
		kept += n
	}
	stored -= kept
	verdict, reason := watch.Judge(stored, len(files), stored-len(files))
	return files, rep, paths, verdict, reason, nil
}

// storedDocuments counts the documents indexed from a vault, failed ones
// included.
func (d *Daemon) storedDocuments(name string) int {
	counts, err := d.store.Counts()
	if err != nil {
		return 0
	}
	c := counts[name]
	return c.Documents + c.Failed
}

// setOffline marks a vault offline for reason, keeping its index.
func (d *Daemon) setOffline(vs *vaultState, reason string) {
	seen := seeRoot(vs.cfg.Path)
	d.mu.Lock()
	was := vs.offline
	vs.online, vs.offline, vs.lastErr = false, reason, reason
	vs.offlineGen++
	vs.offlineSeen = seen
	d.mu.Unlock()
	if was != reason {
		d.log.Warn("vault offline; keeping its index", slog.String("vault", vs.cfg.Name), slog.String("why", reason))
	}
}

// setHeld records (missing > 0) or clears held removals.
func (d *Daemon) setHeld(vs *vaultState, missing, stored int, reason string) {
	d.mu.Lock()
	was := vs.held
	if missing == 0 {
		vs.held = nil
	} else {
		since := time.Now().UTC()
		if was != nil {
			since = was.Since
		}
		vs.held = &ipc.HeldDeletions{Missing: missing, Documents: stored, Since: since}
	}
	d.mu.Unlock()
	switch {
	case missing > 0 && was == nil:
		d.log.Warn("mass deletion held; confirm it with `ragctl reindex -confirm-deletions -vault "+vs.cfg.Name+"`",
			slog.String("vault", vs.cfg.Name), slog.String("why", reason))
	case missing == 0 && was != nil:
		d.log.Info("held deletions released", slog.String("vault", vs.cfg.Name))
	}
}

// rootSeen is what waitForRoot compares to notice that a vault's folder
// changed: whether it exists and, if so, its identity and last change.
type rootSeen struct {
	exists bool
	st     watch.RootState
}

func seeRoot(root string) rootSeen {
	st, err := watch.StatRoot(root)
	return rootSeen{exists: err == nil, st: st}
}

func (a rootSeen) same(b rootSeen) bool {
	return a.exists == b.exists && a.st.SameDir(b.st) && a.st.ModTime.Equal(b.st.ModTime) && a.st.Empty == b.st.Empty
}

// waitForRoot waits until an offline vault may be watched again: a pass
// found it present (a manual or periodic reconcile), or its folder changed
// since it was last seen missing or empty and now exists, and holds entries
// unless nothing is indexed from it. It reports false when ctx ends.
func (d *Daemon) waitForRoot(ctx context.Context, vs *vaultState) bool {
	d.mu.Lock()
	last := vs.offlineSeen
	d.mu.Unlock()
	t := time.NewTicker(rootPollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
		d.mu.Lock()
		online := vs.online
		d.mu.Unlock()
		if online {
			return true
		}
		now := seeRoot(vs.cfg.Path)
		if now.same(last) {
			continue
		}
		last = now
		if now.exists && (!now.st.Empty || d.storedDocuments(vs.cfg.Name) == 0) {
			return true
		}
	}
}
