// Package filestat reads what identifies a version of a file beyond its
// size and modification time: its inode and its status-change time (ctime),
// which no program can set back. Where the system does not say, they are 0.
package filestat

import "io/fs"

// ID is the inode and ctime (Unix nanoseconds) of a file.
type ID struct {
	Ino   uint64
	CTime int64
}

// Of returns the ID of the file fi describes (from os.Stat, Lstat or
// File.Stat).
func Of(fi fs.FileInfo) ID { return of(fi) }
