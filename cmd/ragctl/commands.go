package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A subcommand is one ragctl command: a value owning its flags. Help,
// usage lines and shell completion are all derived from the FlagSet it
// declares, so a flag is written down once.
type subcommand interface {
	// flags declares the command's flags on fs, bound to the command's
	// fields.
	flags(fs *FlagSet)
	// run runs the command with the parsed flags and the positional
	// arguments.
	run(ctx context.Context, e *env, args []string) int
}

// argCompleter is implemented by commands whose positional arguments can
// be completed: arg is the 0-based index of the argument being completed,
// prev the arguments before it.
type argCompleter interface {
	completeArg(arg int, prev []string) completion
}

// command is an entry of the commands table.
type command struct {
	name    string
	args    string // the positional arguments, for the usage line: "QUERY"
	summary string
	new     func() subcommand
	hidden  bool // not listed (the completion helper)
	raw     bool // gets its arguments unparsed (the completion helper: they are another command's)
}

// newFlagSet returns cmd's FlagSet with its flags declared, writing
// errors to w, and the subcommand they are bound to.
func (c command) newFlagSet(e *env, w io.Writer) (*FlagSet, subcommand) {
	sc := c.new()
	fs := &FlagSet{flag.NewFlagSet("ragctl "+c.name, flag.ContinueOnError)}
	fs.SetOutput(w)
	sc.flags(fs)
	if fs.Lookup("socket") == nil {
		fs.Var(&pathFlag{p: &e.socket}, "socket", "ragd socket `PATH` (default $RAGD_SOCKET, then the configured or default socket)")
	}
	fs.Usage = func() {}
	return fs, sc
}

// synopsis is the usage line of c, derived from its flags:
// "ragctl search [-k N] [-json] QUERY".
func (c command) synopsis(fs *FlagSet) string {
	parts := []string{"ragctl", c.name}
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "socket" {
			return
		}
		if isBool(f) {
			parts = append(parts, "[-"+f.Name+"]")
			return
		}
		parts = append(parts, "[-"+f.Name+" "+placeholder(f)+"]")
	})
	if c.args != "" {
		parts = append(parts, c.args)
	}
	return strings.Join(parts, " ")
}

// help prints c's usage line, summary and flags.
func (c command) help(e *env, w io.Writer) {
	fs, _ := c.newFlagSet(e, w)
	fmt.Fprintf(w, "usage: %s\n\n%s.\n\nflags:\n", c.synopsis(fs), upperFirst(c.summary))
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintln(w, "\nFlags may come before or after the arguments; put arguments that start with \"-\" after --.")
}

// placeholder names the value a flag takes in a usage line: the word
// quoted in its usage (`N`), its choices, or its name in capitals.
func placeholder(f *flag.Flag) string {
	if c, ok := f.Value.(*choiceFlag); ok {
		return strings.Join(c.choices, "|")
	}
	name, _ := flag.UnquoteUsage(f)
	switch name {
	case "", "value", "string", "int":
		return strings.ToUpper(f.Name)
	}
	return name
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// lookup returns the command named name.
func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// runCommand parses args for c, flags anywhere among the arguments, and
// runs it. Parse errors and -h are handled here: usage errors exit 2 with
// the usage line, help goes to stdout and exits 0.
func runCommand(ctx context.Context, e *env, c command, args []string) int {
	fs, sc := c.newFlagSet(e, io.Discard)
	if c.raw {
		return sc.run(ctx, e, args)
	}
	pos, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.help(e, e.stdout)
		return exitOK
	}
	if err != nil {
		return e.usageError(c, fs, err.Error())
	}
	return sc.run(ctx, e, pos)
}

// usageError prints msg and c's usage line, and returns exitUsage.
func (e *env) usageError(c command, fs *FlagSet, msg string) int {
	if msg != "" {
		fmt.Fprintf(e.stderr, "ragctl %s: %s\n", c.name, msg)
	}
	fmt.Fprintf(e.stderr, "usage: %s\n(ragctl %s -h for help)\n", c.synopsis(fs), c.name)
	return exitUsage
}

// usage reports a usage error from inside a command's run.
func (e *env) usage(name, msg string) int {
	c, _ := lookup(name)
	fs, _ := c.newFlagSet(e, io.Discard)
	return e.usageError(c, fs, msg)
}

// parseInterspersed parses flags wherever they appear among the
// arguments ("ragctl search espresso -k 2" sets -k), as the flag package
// alone does not: it stops at the first argument that is not a flag.
// Everything after "--" is an argument.
func parseInterspersed(fs *FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if strings.Contains(err.Error(), "flag provided but not defined") {
				err = fmt.Errorf("%w (to use an argument that starts with \"-\", put it after --)", err)
			}
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// The flag package stops at "--" (consumed) or at a non-flag.
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" && !valueOfFlag(fs, args[:used-1]) {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// valueOfFlag reports whether the argument after args would be the value
// of a flag: args ends with a non-bool flag written without "=".
func valueOfFlag(fs *FlagSet, args []string) bool {
	if len(args) == 0 {
		return false
	}
	last := args[len(args)-1]
	if !strings.HasPrefix(last, "-") || strings.Contains(last, "=") || last == "-" || last == "--" {
		return false
	}
	f := fs.Lookup(strings.TrimLeft(last, "-"))
	return f != nil && !isBool(f)
}
