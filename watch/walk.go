package watch

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// walkParallel is the whole-vault scan: folders are read and their files
// stat'ed by a few goroutines at once (a start-up pass over 65,000 files
// is mostly this walk, and one goroutine left the other cores idle), and
// the results are put together in the order filepath.WalkDir gives:
// lexical within each folder, a folder's subtree in its place. onDir, if
// set, is called with every folder below the root before it is read (a
// Watcher's Scan watches it then, so a change after the read is an event).
func walkParallel(ctx context.Context, root, realRoot string, f Filter, onDir func(abs, rel string)) ([]File, Report, error) {
	var rep Report
	top := &walkDir{}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, rep, err
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))
	var visit func(n *walkDir, abs, rel string, entries []os.DirEntry)
	// enter reads folder abs into n in a goroutine of its own.
	enter := func(n *walkDir, abs, rel string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				return
			}
			sem <- struct{}{}
			if onDir != nil {
				onDir(abs, rel)
			}
			entries, err := os.ReadDir(abs)
			if err != nil {
				// An unreadable folder: skip it, keep scanning, and report
				// it so that what is indexed under it is kept.
				n.items = append(n.items, walkItem{unreadable: &Skipped{Rel: rel, Reason: reasonOf(err)}})
				<-sem
				return
			}
			visit(n, abs, rel, entries)
		}()
	}
	// visit fills n from a folder's entries, holding a slot of sem, and
	// enters its subfolders.
	visit = func(n *walkDir, abs, rel string, entries []os.DirEntry) {
		var subs []func()
		for _, d := range entries {
			p := filepath.Join(abs, d.Name())
			r := d.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			if d.IsDir() {
				if f.ExcludedDir(r) {
					continue
				}
				sub := &walkDir{}
				n.items = append(n.items, walkItem{dir: sub})
				subs = append(subs, func() { enter(sub, p, r) })
				continue
			}
			file, skipped, ok := admit(f, realRoot, p, r, d)
			switch {
			case skipped != nil:
				n.items = append(n.items, walkItem{special: skipped})
			case ok:
				n.items = append(n.items, walkItem{file: &file})
			}
		}
		<-sem
		for _, s := range subs {
			s()
		}
	}
	sem <- struct{}{}
	visit(top, root, "", entries)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, rep, err
	}
	var files []File
	top.flatten(&files, &rep)
	return files, rep, nil
}

// walkDir is what a folder holds, in order: files, special files, and
// subfolders (each its own walkDir), or that it was unreadable.
type walkDir struct{ items []walkItem }

type walkItem struct {
	file       *File
	special    *Skipped
	unreadable *Skipped
	dir        *walkDir
}

func (n *walkDir) flatten(files *[]File, rep *Report) {
	for _, it := range n.items {
		switch {
		case it.file != nil:
			*files = append(*files, *it.file)
		case it.special != nil:
			rep.Special = append(rep.Special, *it.special)
		case it.unreadable != nil:
			rep.Unreadable = append(rep.Unreadable, *it.unreadable)
		case it.dir != nil:
			it.dir.flatten(files, rep)
		}
	}
}
