//go:build !unix

package watch

import "io/fs"

// devIno is unknown outside Unix: every root looks the same.
func devIno(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
