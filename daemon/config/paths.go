package config

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxSocketPath is the longest unix socket path accepted, in bytes. Linux
// allows 107 bytes plus a NUL terminator, macOS 103; 104 is used everywhere so
// a configuration that works on one works on both.
const MaxSocketPath = 104

// DefaultPath is where ragd looks for its configuration file:
// $XDG_CONFIG_HOME/ragd/ragd.toml, or ~/.config/ragd/ragd.toml when
// XDG_CONFIG_HOME is unset or not absolute.
func DefaultPath() string {
	return filepath.Join(xdgDir("XDG_CONFIG_HOME", ".config"), "ragd", "ragd.toml")
}

// DefaultDataDir is the default daemon.data_dir: $XDG_DATA_HOME/ragd, or
// ~/.local/share/ragd when XDG_DATA_HOME is unset or not absolute.
func DefaultDataDir() string {
	return filepath.Join(xdgDir("XDG_DATA_HOME", filepath.Join(".local", "share")), "ragd")
}

// DefaultSocketPath is the default daemon.socket, usable without any
// configuration file (ragctl uses it to find the daemon):
// $XDG_RUNTIME_DIR/ragd/ragd.sock, or /tmp/ragd-<uid>/ragd.sock when
// XDG_RUNTIME_DIR is unset or not absolute.
func DefaultSocketPath() string {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "ragd", "ragd.sock")
	}
	return filepath.Join("/tmp", "ragd-"+strconv.Itoa(os.Getuid()), "ragd.sock")
}

// xdgDir returns $env when it holds an absolute path (the XDG base
// directory spec says relative values are to be ignored), else ~/fallback.
func xdgDir(env, fallback string) string {
	if dir := os.Getenv(env); filepath.IsAbs(dir) {
		return filepath.Clean(dir)
	}
	return filepath.Join(homeDir(), fallback)
}

// homeDir is $HOME, else the home directory in the user database, else "/".
func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir
	}
	return "/"
}

// errTildeUser is returned by resolvePath for "~user/..." paths.
var errTildeUser = errors.New(`"~user" paths are not supported; use "~/..." or an absolute path`)

// resolvePath expands a leading "~" or "~/" to the home directory ($HOME),
// resolves a relative path against baseDir and cleans the result. It does
// not expand environment variables.
func resolvePath(p, baseDir string) (string, error) {
	switch {
	case p == "~":
		return homeForTilde()
	case strings.HasPrefix(p, "~/"):
		home, err := homeForTilde()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, p[2:]), nil
	case strings.HasPrefix(p, "~"):
		return "", errTildeUser
	case filepath.IsAbs(p):
		return filepath.Clean(p), nil
	}
	base, err := absDir(baseDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, p), nil
}

func homeForTilde() (string, error) {
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New(`cannot expand "~": $HOME is not set`)
	}
	return filepath.Clean(h), nil
}

// absDir makes baseDir absolute; "" means the working directory.
func absDir(baseDir string) (string, error) {
	if baseDir == "" {
		baseDir = "."
	}
	return filepath.Abs(baseDir)
}

// Source says where Locate found the configuration's path.
type Source int

// Sources of the configuration's path.
const (
	FromFlag    Source = iota // the path given (a -config flag)
	FromEnv                   // $RAGD_CONFIG
	FromDefault               // DefaultPath()
)

// String names the source for messages: "-config", "$RAGD_CONFIG" or
// "the default path".
func (s Source) String() string {
	switch s {
	case FromFlag:
		return "-config"
	case FromEnv:
		return "$RAGD_CONFIG"
	}
	return "the default path"
}

// Locate picks the configuration file the way ragd does: the path given
// (a -config flag), else $RAGD_CONFIG, else DefaultPath(); from says which.
func Locate(given string) (path string, from Source) {
	if given != "" {
		return given, FromFlag
	}
	if p := os.Getenv("RAGD_CONFIG"); p != "" {
		return p, FromEnv
	}
	return DefaultPath(), FromDefault
}
