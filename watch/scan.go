// Package watch finds the files of a vault: a full scan (the source of
// truth, run at start-up and on demand) and, in later work, fsnotify-driven
// change hints that feed the same indexer.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Filter decides which paths of a vault are indexed. Paths are
// slash-separated and relative to the vault root.
type Filter interface {
	Match(rel string) bool
	ExcludedDir(rel string) bool
}

// File is one file found by a scan.
type File struct {
	Rel     string
	Abs     string
	Size    int64
	ModTime time.Time
}

// ErrRootMissing is returned when the vault root does not exist or is not a
// directory (an unmounted drive, a renamed folder).
var ErrRootMissing = errors.New("vault root is missing")

// Scan walks the vault rooted at root and returns the files the filter
// admits, in lexical order. Directories the filter excludes are not
// entered. Symbolic links are followed only when their target lies inside
// the vault; a link to a directory is never followed (the target is
// scanned in its own right when it is inside the vault).
func Scan(ctx context.Context, root string, f Filter) ([]File, error) {
	return ScanPath(ctx, root, "", f)
}

// ScanPath is Scan limited to one vault-relative file or folder: it returns
// the admitted files at or under rel (none if rel no longer exists). Paths
// in the result stay relative to root.
func ScanPath(ctx context.Context, root, rel string, f Filter) ([]File, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(root)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%w: %s", ErrRootMissing, root)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRootMissing, root, err)
	}
	start := root
	if rel = strings.Trim(filepath.ToSlash(rel), "/"); rel != "" {
		start = filepath.Join(root, filepath.FromSlash(rel))
		for dir := rel; ; {
			i := strings.LastIndexByte(dir, '/')
			if i < 0 {
				break
			}
			if dir = dir[:i]; f.ExcludedDir(dir) {
				return nil, nil
			}
		}
		if _, err := os.Lstat(start); err != nil {
			return nil, nil // gone: the caller removes what was indexed there
		}
		// Never leave the vault through a symlinked folder on the way.
		if parent, err := filepath.EvalSymlinks(filepath.Dir(start)); err != nil || !inside(realRoot, parent) {
			return nil, nil
		}
		if fi, err := os.Lstat(start); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if target, err := filepath.EvalSymlinks(start); err != nil || !inside(realRoot, target) {
				return nil, nil
			}
			if fi, err := os.Stat(start); err == nil && fi.IsDir() {
				return nil, nil // links to folders are never followed
			}
		}
	}
	var files []File
	err = filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p == root {
			return err
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			// An unreadable directory: skip it, keep scanning.
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if f.ExcludedDir(rel) {
				return fs.SkipDir
			}
			return nil
		}
		if !f.Match(rel) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil // vanished between readdir and stat
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(p)
			if err != nil || !inside(realRoot, target) {
				return nil
			}
			if info, err = os.Stat(target); err != nil || !info.Mode().IsRegular() {
				return nil
			}
		} else if !info.Mode().IsRegular() {
			return nil
		}
		files = append(files, File{Rel: rel, Abs: p, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}

func inside(root, p string) bool {
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}
