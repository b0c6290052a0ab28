package daemon

import (
	"sort"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/watch"
)

// maxSkippedListed bounds the unreadable folders and special files listed
// per vault in status.
const maxSkippedListed = 200

// noteSkipped records what a scan passed over: a scan of the whole vault
// replaces what is known, a scan of some paths adds to it.
func (d *Daemon) noteSkipped(vs *vaultState, rep watch.Report, whole bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if whole {
		vs.unreadable, vs.special = rep.Unreadable, rep.Special
		return
	}
	vs.unreadable = mergeSkipped(vs.unreadable, rep.Unreadable)
	vs.special = mergeSkipped(vs.special, rep.Special)
}

// mergeSkipped adds the paths of b that a lacks.
func mergeSkipped(a, b []watch.Skipped) []watch.Skipped {
	a = append([]watch.Skipped(nil), a...)
	have := make(map[string]bool, len(a))
	for _, s := range a {
		have[s.Rel] = true
	}
	for _, s := range b {
		if !have[s.Rel] {
			have[s.Rel] = true
			a = append(a, s)
		}
	}
	return a
}

// skippedStatus fills a vault's status with the unreadable folders (the
// last scan's and the watcher's) and the special files.
func skippedStatus(v *ipc.VaultStatus, scanned, watched, special []watch.Skipped) {
	for _, s := range mergeSkipped(scanned, watched) {
		v.Unreadable = append(v.Unreadable, ipc.SkippedPath{Path: s.Rel, Reason: s.Reason})
	}
	sort.Slice(v.Unreadable, func(i, j int) bool { return v.Unreadable[i].Path < v.Unreadable[j].Path })
	if len(v.Unreadable) > maxSkippedListed {
		v.Unreadable = v.Unreadable[:maxSkippedListed]
	}
	v.Special = len(special)
	for i, s := range special {
		if i == maxSkippedListed {
			break
		}
		v.SpecialFiles = append(v.SpecialFiles, ipc.SkippedPath{Path: s.Rel, Reason: s.Reason})
	}
}
