package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// Flag values that check what they are given while the command line is
// parsed, so a bad value is a usage error (exit 2) before anything is
// asked of the daemon, and that tell completion what they take.

// intFlag is an integer flag that must lie between min and max.
type intFlag struct {
	p        *int
	min, max int
}

func (f *FlagSet) intRange(p *int, name string, def, min, max int, usage string) {
	*p = def
	f.Var(&intFlag{p: p, min: min, max: max}, name, usage)
}

func (f *intFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return strconv.Itoa(*f.p)
}

func (f *intFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	if n < f.min || n > f.max {
		return fmt.Errorf("must be from %d to %d", f.min, f.max)
	}
	*f.p = n
	return nil
}

// choiceFlag is a string flag taking one of a fixed set of words.
type choiceFlag struct {
	p       *string
	choices []string
	// source, when set, names the daemon query that says which choices
	// apply right now (completion asks it; see completeSource).
	source string
}

func (f *FlagSet) choice(p *string, name, def string, choices []string, usage string) *choiceFlag {
	*p = def
	c := &choiceFlag{p: p, choices: choices}
	f.Var(c, name, usage)
	return c
}

func (f *choiceFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			*f.p = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(f.choices, ", "))
}

// wordsFlag is a string flag whose usual values completion offers, but
// which takes any word.
type wordsFlag struct {
	p     *string
	words []string
}

func (f *wordsFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *wordsFlag) Set(s string) error { *f.p = s; return nil }

// pathFlag is a flag naming a file (or, with dir, a directory).
type pathFlag struct {
	p   *string
	dir bool
}

func (f *FlagSet) path(p *string, name string, dir bool, usage string) {
	f.Var(&pathFlag{p: p, dir: dir}, name, usage)
}

func (f *pathFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *pathFlag) Set(s string) error { *f.p = s; return nil }

// vaultFlag names a vault (with list, several, comma-separated); completion
// asks the daemon for the vault names.
type vaultFlag struct {
	p    *string
	list bool
}

func (f *FlagSet) vault(p *string, list bool, usage string) {
	f.Var(&vaultFlag{p: p, list: list}, "vault", usage)
}

func (f *vaultFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *vaultFlag) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty vault name")
	}
	*f.p = s
	return nil
}

// vaults splits a -vault list.
func vaults(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// FlagSet is a subcommand's flag.FlagSet with the typed flag helpers
// above.
type FlagSet struct {
	*flag.FlagSet
}

// modes are the search modes, in the order completion offers them.
var modes = ipc.Modes

// mode declares the -mode flag of search and context.
func (f *FlagSet) mode(p *string) {
	c := f.choice(p, "mode", "", modes, "search `MODE`: hybrid (default), lexical or vector")
	c.source = sourceModes
}

// jsonFlag declares -json.
func (f *FlagSet) jsonFlag(p *bool) { f.BoolVar(p, "json", false, "print JSON") }
