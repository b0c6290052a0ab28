package config

import (
	"errors"
	"sort"
	"strconv"
	"strings"
)

// Error is one problem found in a configuration file. It prints as
//
//	ragd.toml:12: vault[1].path: "/nope" does not exist
//
// File is the path as given to Load (or the file name given to Parse).
// Line is 1-based; 0 means the problem has no line of its own (for example a
// default value that turned out to be unusable). Key is the full key path,
// with 0-based indices for [[vault]] elements and array items, e.g.
// "vault[1].include[2]"; it is empty when no key is involved. A syntax
// error stops parsing early and comes alone; its Key, when set, is the TOML
// library's spelling without indices ("vault.name").
type Error struct {
	File string
	Line int
	Key  string
	Msg  string

	err error // underlying cause, if any (for errors.Is / errors.As)
}

// Error formats the error as "file:line: key: msg", leaving out the parts
// that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	loc := e.File
	if e.Line > 0 {
		if loc == "" {
			loc = "line " + strconv.Itoa(e.Line)
		} else {
			loc += ":" + strconv.Itoa(e.Line)
		}
	}
	for _, part := range []string{loc, e.Key, e.Msg} {
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(part)
	}
	if b.Len() == 0 {
		return "config: invalid configuration"
	}
	return b.String()
}

// Unwrap returns the underlying cause (such as an *fs.PathError), if any.
func (e *Error) Unwrap() error { return e.err }

// Errors is the list of all problems found in one configuration file,
// ordered by line. Load and Parse return a non-empty Errors value (never an
// empty one) when the configuration is unusable.
type Errors []*Error

// Error prints one problem per line.
func (es Errors) Error() string {
	if len(es) == 0 {
		return "config: no errors"
	}
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the individual errors to errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// AsErrors returns the individual problems contained in err: the Errors
// returned by Load or Parse, a single *Error, or nil if err holds neither.
func AsErrors(err error) Errors {
	var es Errors
	if errors.As(err, &es) {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return Errors{e}
	}
	return nil
}

// errList collects problems while a file is validated.
type errList struct {
	file string
	errs Errors
}

func (l *errList) add(line int, key, msg string) {
	l.errs = append(l.errs, &Error{File: l.file, Line: line, Key: key, Msg: msg})
}

// result returns the collected errors sorted by line (stable, so problems on
// the same line keep the order they were found in), or nil.
func (l *errList) result() error {
	if len(l.errs) == 0 {
		return nil
	}
	sort.SliceStable(l.errs, func(i, j int) bool { return l.errs[i].Line < l.errs[j].Line })
	return l.errs
}
