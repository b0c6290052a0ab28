// Package version reports the version of the ragd and ragctl binaries: the
// one stamped at build time by the Makefile (-ldflags -X), else what the Go
// toolchain recorded (a module version, or the VCS revision of the source
// tree), else "dev".
package version

import (
	"runtime/debug"
	"sync"
)

// Version is set at build time with
// -ldflags '-X github.com/ragd/ragd/internal/version.Version=v1.2.3'.
var Version = ""

var (
	once   sync.Once
	cached string
)

// String returns the version of the running binary.
func String() string {
	once.Do(func() { cached = resolve(Version) })
	return cached
}

func resolve(stamped string) string {
	if stamped != "" {
		return stamped
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev == "" {
		return "dev"
	}
	return "dev-" + rev + dirty
}
