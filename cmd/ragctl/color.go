package main

import "os"

// palette colours human output on a terminal; its zero value (pipes,
// files, NO_COLOR set) writes plain text.
type palette struct{ on bool }

// colors returns the palette for e: colour only on a terminal and only
// when NO_COLOR is unset (https://no-color.org).
func (e *env) colors() palette {
	return palette{on: e.isTTY && os.Getenv("NO_COLOR") == ""}
}

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) path(s string) string    { return p.wrap("1;36", s) } // bold cyan
func (p palette) heading(s string) string { return p.wrap("33", s) }   // yellow
func (p palette) dim(s string) string     { return p.wrap("2", s) }
func (p palette) warn(s string) string    { return p.wrap("31", s) } // red
func (p palette) ok(s string) string      { return p.wrap("32", s) } // green
func (p palette) caution(s string) string { return p.wrap("33", s) } // yellow
func (p palette) bold(s string) string    { return p.wrap("1", s) }
func (p palette) fix(s string) string     { return p.wrap("36", s) } // cyan
func (p palette) match(s string) string   { return p.wrap("1", s) }  // a matched term: bold
