package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
)

// Shell completion is computed by ragctl itself: the scripts that
// `ragctl completion SHELL` prints hand the command line to the hidden
// command `ragctl __complete WORD…` (the last word being the one under the
// cursor) and offer what it prints. Commands, flags and what each flag
// takes come from the commands' FlagSets; vault names, search modes and
// note names come from the daemon when it answers.

const completeCommand = "__complete"

// Daemon sources of completions.
const (
	sourceVaults = "vaults" // vault names
	sourceModes  = "modes"  // search modes the daemon can serve
	sourceNotes  = "notes"  // note titles and file names
)

// completeTimeout bounds the daemon question of one completion: a shell
// waits for it.
const completeTimeout = 1500 * time.Millisecond

// completion says how to complete a word: from words, as a file or a
// directory (by the shell), or from a daemon source.
type completion struct {
	words     []string
	descs     []string // descriptions of words, when known
	file, dir bool
	source    string
}

var completionShells = []string{"bash", "zsh", "fish"}

// completionCmd prints a completion script.
type completionCmd struct{}

func (c *completionCmd) flags(*FlagSet) {}

func (c *completionCmd) completeArg(arg int, _ []string) completion {
	if arg == 0 {
		return completion{words: completionShells}
	}
	return completion{}
}

func (c *completionCmd) run(_ context.Context, e *env, args []string) int {
	if len(args) != 1 || !slices.Contains(completionShells, args[0]) {
		return e.usage("completion", "name one shell: bash, zsh or fish")
	}
	writeCompletionScript(e.stdout, args[0])
	return exitOK
}

// completeCmd is `ragctl __complete WORD…`. It prints what the word under
// the cursor (the last) may become: a first line "words", "file" or "dir",
// then for words one candidate per line, "candidate<TAB>description".
type completeCmd struct{}

func (c *completeCmd) flags(*FlagSet) {}

func (c *completeCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		args = []string{""}
	}
	comp, prefix, cur := completeLine(e, args[:len(args)-1], args[len(args)-1])
	printCompletion(ctx, e, comp, prefix, cur)
	return exitOK
}

// completeLine works out how to complete cur, the word under the cursor,
// after the words before it. prefix is a part of cur that every candidate
// keeps ("-mode=" or "notes," in a list of vaults); cur is then the rest.
func completeLine(e *env, before []string, cur string) (comp completion, prefix, rest string) {
	globals := flag.NewFlagSet("ragctl", flag.ContinueOnError)
	globals.Var(&pathFlag{p: &e.socket}, "socket", "ragd `socket`")
	globals.Bool("version", false, "print ragctl's version")
	i := 0
	for ; i < len(before); i++ {
		w := before[i]
		if !strings.HasPrefix(w, "-") || w == "-" {
			break
		}
		if f := lookupFlag(globals, w); f != nil && !isBool(f) && !strings.Contains(w, "=") {
			i++
			if i < len(before) && f.Name == "socket" {
				e.socket = before[i]
			}
		} else if name, v, ok := strings.Cut(strings.TrimLeft(w, "-"), "="); ok && name == "socket" {
			e.socket = v
		}
	}
	if i == len(before) {
		// Completing a global flag, its value, or the command.
		if i > 0 {
			if f := lookupFlag(globals, before[i-1]); f != nil && !isBool(f) && !strings.Contains(before[i-1], "=") {
				return completion{file: true}, "", cur
			}
		}
		if strings.HasPrefix(cur, "-") {
			return flagWords(globals), "", cur
		}
		return commandWords(), "", cur
	}
	name := before[i]
	if name == "help" {
		if i == len(before)-1 {
			return commandWords(), "", cur
		}
		return completion{}, "", cur
	}
	c, ok := lookup(name)
	if !ok || c.hidden {
		return completion{}, "", cur
	}
	fs, sc := c.newFlagSet(e, io.Discard)
	var pos []string
	dashdash := false
	for j := i + 1; j < len(before); j++ {
		w := before[j]
		switch {
		case dashdash || !strings.HasPrefix(w, "-") || w == "-":
			pos = append(pos, w)
		case w == "--":
			dashdash = true
		default:
			f := lookupFlag(fs.FlagSet, w)
			if f == nil || isBool(f) {
				continue
			}
			if n, v, ok := strings.Cut(strings.TrimLeft(w, "-"), "="); ok {
				if n == "socket" {
					e.socket = v
				}
				continue
			}
			if j+1 < len(before) {
				j++
				if f.Name == "socket" {
					e.socket = before[j]
				}
				continue
			}
			// The flag is the last word before cur: cur is its value.
			return valueCompletion(f, cur)
		}
	}
	if !dashdash && strings.HasPrefix(cur, "-") {
		if n, v, ok := strings.Cut(cur, "="); ok {
			if f := lookupFlag(fs.FlagSet, n); f != nil && !isBool(f) {
				comp, p, rest := valueCompletion(f, v)
				return comp, n + "=" + p, rest
			}
			return completion{}, "", cur
		}
		return flagWords(fs.FlagSet), "", cur
	}
	if ac, ok := sc.(argCompleter); ok {
		return ac.completeArg(len(pos), pos), "", cur
	}
	return completion{}, "", cur
}

// lookupFlag finds the flag written as w ("-k", "--json", "-mode=x").
func lookupFlag(fs *flag.FlagSet, w string) *flag.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	if name == "" {
		return nil
	}
	return fs.Lookup(name)
}

// valueCompletion completes cur as the value of f, from what its type
// says it takes.
func valueCompletion(f *flag.Flag, cur string) (completion, string, string) {
	switch v := f.Value.(type) {
	case *choiceFlag:
		return completion{words: v.choices, source: v.source}, "", cur
	case *wordsFlag:
		return completion{words: v.words}, "", cur
	case *pathFlag:
		return completion{file: !v.dir, dir: v.dir}, "", cur
	case *vaultFlag:
		prefix := ""
		if v.list {
			if i := strings.LastIndexByte(cur, ','); i >= 0 {
				prefix, cur = cur[:i+1], cur[i+1:]
			}
		}
		return completion{source: sourceVaults}, prefix, cur
	}
	return completion{}, "", cur
}

func flagWords(fs *flag.FlagSet) completion {
	var c completion
	fs.VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		c.words = append(c.words, "-"+f.Name)
		c.descs = append(c.descs, usage)
	})
	return c
}

func commandWords() completion {
	var c completion
	for _, cmd := range commands {
		if !cmd.hidden {
			c.words = append(c.words, cmd.name)
			c.descs = append(c.descs, cmd.summary)
		}
	}
	c.words = append(c.words, "help")
	c.descs = append(c.descs, "show the commands, or a command's flags")
	return c
}

// printCompletion prints comp's kind and, for words, the candidates that
// start with cur, each with prefix put back in front.
func printCompletion(ctx context.Context, e *env, comp completion, prefix, cur string) {
	switch {
	case comp.file:
		fmt.Fprintln(e.stdout, "file")
		return
	case comp.dir:
		fmt.Fprintln(e.stdout, "dir")
		return
	}
	if comp.source != "" {
		if words, ok := daemonWords(ctx, e, comp.source, cur); ok {
			comp.words, comp.descs = words, nil
		}
	}
	fmt.Fprintln(e.stdout, "words")
	seen := map[string]bool{}
	for i, w := range comp.words {
		if seen[w] || !hasPrefixFold(w, cur) {
			continue
		}
		seen[w] = true
		line := prefix + w
		if i < len(comp.descs) && comp.descs[i] != "" {
			line += "\t" + strings.ReplaceAll(comp.descs[i], "\n", " ")
		}
		fmt.Fprintln(e.stdout, line)
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// daemonWords asks the daemon for the completions of a source; ok is
// false when it does not answer in time (the static words stand).
func daemonWords(ctx context.Context, e *env, source, cur string) ([]string, bool) {
	ctx, cancel := context.WithTimeout(ctx, completeTimeout)
	defer cancel()
	cl := e.client()
	defer cl.Close()
	switch source {
	case sourceVaults:
		st, err := cl.Status(ctx)
		if err != nil {
			return nil, false
		}
		var out []string
		for _, v := range st.Vaults {
			out = append(out, v.Name)
		}
		return out, true
	case sourceModes:
		st, err := cl.Status(ctx)
		if err != nil {
			return nil, false
		}
		if st.Vector == nil {
			// Without an embedder the vector mode finds nothing.
			return []string{ipc.ModeHybrid, ipc.ModeLexical}, true
		}
		return modes, true
	case sourceNotes:
		resp, err := cl.Graph(ctx, ipc.GraphRequest{Query: ipc.GraphEntities, Type: "note"})
		if err != nil {
			return nil, false
		}
		var out []string
		for _, en := range resp.Entities {
			if strings.Contains(cur, "/") {
				out = append(out, en.Path)
				continue
			}
			if en.Name != "" {
				out = append(out, en.Name)
			}
			if base := strings.TrimSuffix(path.Base(en.Path), path.Ext(en.Path)); base != en.Name {
				out = append(out, base)
			}
		}
		slices.Sort(out)
		return out, true
	}
	return nil, false
}
