package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// flagArg says what value a flag takes, for completion.
type flagArg int

const (
	argNone  flagArg = iota // a bool flag: no value
	argAny                  // a value with nothing to offer (a number, a name)
	argFile                 // a file
	argDir                  // a directory
	argWords                // one of flagSpec.words
)

type flagSpec struct {
	name  string
	arg   flagArg
	usage string
	words []string // for argWords
}

// cmdSpec is what completion knows of a command beyond its name and
// summary (which come from the commands table).
type cmdSpec struct {
	flags []flagSpec
	// args are the words offered for the first argument.
	args []string
}

var socketFlag = flagSpec{name: "socket", arg: argFile, usage: "ragd socket"}

// globalFlags are the flags given before the command.
var globalFlags = []flagSpec{socketFlag}

// completionSpecs has an entry for every command of the commands table,
// listing the flags its FlagSet defines; TestCompletionSpecsMatchFlags
// checks both against the commands.
var completionSpecs = map[string]cmdSpec{
	"search": {flags: []flagSpec{
		{name: "k", arg: argAny, usage: "number of results"},
		{name: "vault", arg: argAny, usage: "search only this vault (comma-separated for several)"},
		{name: "path", arg: argAny, usage: "search only files under this vault-relative path"},
		{name: "mode", arg: argAny, usage: "hybrid (default), lexical or vector"},
		{name: "explain", usage: "show each channel's rank and score per result"},
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"context": {flags: []flagSpec{
		{name: "k", arg: argAny, usage: "chunks to retrieve"},
		{name: "vault", arg: argAny, usage: "search only this vault (comma-separated for several)"},
		{name: "path", arg: argAny, usage: "search only files under this vault-relative path"},
		{name: "budget", arg: argAny, usage: "most characters of quoted text"},
		{name: "summary", usage: "paths and preview lines instead of full snippets"},
		{name: "mode", arg: argAny, usage: "hybrid (default), lexical or vector"},
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"similar": {flags: []flagSpec{
		{name: "k", arg: argAny, usage: "notes to list"},
		{name: "vault", arg: argAny, usage: "the vault holding PATH (when several do)"},
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"plugins": {flags: []flagSpec{
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"status": {flags: []flagSpec{
		{name: "watch", usage: "refresh until interrupted"},
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"reindex": {flags: []flagSpec{
		{name: "vault", arg: argAny, usage: "reindex only this vault"},
		{name: "wait", usage: "wait until the pass is finished and print what it did"},
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"runs": {flags: []flagSpec{
		{name: "n", arg: argAny, usage: "number of runs to list, from 1 to 1000"},
		{name: "json", usage: "print JSON"},
		socketFlag,
	}},
	"events": {flags: []flagSpec{
		{name: "json", usage: "print each event as a line of JSON"},
		socketFlag,
	}},
	"graph": {
		args: []string{"backlinks", "links", "neighbors", "entities", "unresolved"},
		flags: []flagSpec{
			{name: "vault", arg: argAny, usage: "only this vault"},
			{name: "hops", arg: argAny, usage: "neighbors: how many links away (1-3)"},
			{name: "type", arg: argWords, usage: "entities: note or tag", words: []string{"note", "tag"}},
			{name: "limit", arg: argAny, usage: "at most this many rows"},
			{name: "json", usage: "print JSON"},
			socketFlag,
		},
	},
	"eval": {flags: []flagSpec{
		{name: "beir", arg: argDir, usage: "BEIR dataset directory"},
		{name: "vault", arg: argDir, usage: "vault directory to evaluate on (with -qrels)"},
		{name: "qrels", arg: argFile, usage: "questions file: question<TAB>path[;path…] per line"},
		{name: "ragd", arg: argFile, usage: "ragd binary to start"},
		{name: "json", usage: "print JSON"},
		{name: "keep", usage: "keep the temporary directory and print its path"},
		{name: "channels", arg: argAny, usage: "comma-separated retrieval channels to use (bm25, vector, graph)"},
		{name: "weights", arg: argAny, usage: "fusion weights, e.g. bm25=1,vector=0.2"},
		{name: "mode", arg: argAny, usage: "hybrid, lexical or vector"},
		{name: "fusion", arg: argAny, usage: "convex or rrf"},
		{name: "embedder", arg: argAny, usage: "built-in embedder to index with (uselite, ollama, openai)"},
		{name: "embedder-options", arg: argAny, usage: "its options, e.g. model=nomic-embed-text"},
		{name: "sweep", usage: "compare lexical, vector and hybrid fusions side by side"},
		socketFlag,
	}},
	"bench": {flags: []flagSpec{
		{name: "vault", arg: argDir, usage: "vault to copy and measure on"},
		{name: "trials", arg: argAny, usage: "save → searchable trials"},
		{name: "idle", arg: argAny, usage: "how long to measure idle CPU (0 skips)"},
		{name: "ragd", arg: argFile, usage: "ragd binary to start"},
		{name: "json", usage: "print JSON"},
		{name: "keep", usage: "keep the temporary directory and print its path"},
		socketFlag,
	}},
	"mcp": {flags: []flagSpec{socketFlag}},
	"doctor": {flags: []flagSpec{
		{name: "json", usage: "print JSON"},
		{name: "config", arg: argFile, usage: "ragd's configuration file"},
		socketFlag,
	}},
	"completion": {args: completionShells},
	"version":    {},
}

var completionShells = []string{"bash", "zsh", "fish"}

// commandTable returns the commands table. It is set by init: commands
// refers to runCompletion, so a direct reference back to commands from
// here would be an initialization cycle.
var commandTable func() []command

func init() { commandTable = func() []command { return commands } }

// compCommand is a command as the completion scripts see it.
type compCommand struct {
	name, desc string
	cmdSpec
}

// completionCommands lists the commands of the table with their specs,
// and help.
func completionCommands() []compCommand {
	var out []compCommand
	for _, c := range commandTable() {
		desc, _, _ := strings.Cut(c.summary, ": ")
		out = append(out, compCommand{name: c.name, desc: desc, cmdSpec: completionSpecs[c.name]})
	}
	return append(out, compCommand{name: "help", desc: "show the commands"})
}

// runCompletion prints a completion script for bash, zsh or fish.
func runCompletion(_ context.Context, e *env, args []string) int {
	fs := flag.NewFlagSet("ragctl completion", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 || !slices.Contains(completionShells, fs.Arg(0)) {
		fmt.Fprintln(e.stderr, "usage: ragctl completion bash|zsh|fish")
		return exitUsage
	}
	writeCompletion(e.stdout, fs.Arg(0))
	return exitOK
}

func writeCompletion(w io.Writer, shell string) {
	cmds := completionCommands()
	switch shell {
	case "bash":
		writeBash(w, cmds)
	case "zsh":
		writeZsh(w, cmds)
	case "fish":
		writeFish(w, cmds)
	}
}

func flagNames(flags []flagSpec) string {
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = "-" + f.name
	}
	return strings.Join(names, " ")
}

func writeBash(w io.Writer, cmds []compCommand) {
	// The patterns "command:flag" of the flags taking each kind of value;
	// the global flags have an empty command.
	kinds := map[flagArg][]string{}
	var words []string // case lines of argWords flags
	add := func(cmd string, f flagSpec) {
		pat := cmd + ":" + f.name
		if f.arg == argWords {
			words = append(words, fmt.Sprintf("    %s) echo %q ;;\n", pat, "words "+strings.Join(f.words, " ")))
			return
		}
		kinds[f.arg] = append(kinds[f.arg], pat)
	}
	for _, f := range globalFlags {
		add("", f)
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.name)
		for _, f := range c.flags {
			add(c.name, f)
		}
	}

	fmt.Fprint(w, `# bash completion for ragctl, generated by `+"`ragctl completion bash`"+`.
# Install it with
#   ragctl completion bash > ~/.local/share/bash-completion/completions/ragctl
# or load it from ~/.bashrc with: source <(ragctl completion bash)

# _ragctl_flag_arg CMD FLAG prints what FLAG of command CMD (empty for the
# global flags) takes: file, dir, any, or "words W…"; nothing for a flag
# without a value.
_ragctl_flag_arg() {
    local f="${2#-}"
    f="${f#-}"
    case "$1:$f" in
`)
	for _, k := range []struct {
		arg  flagArg
		name string
	}{{argFile, "file"}, {argDir, "dir"}, {argAny, "any"}} {
		if pats := kinds[k.arg]; len(pats) > 0 {
			fmt.Fprintf(w, "    %s) echo %s ;;\n", strings.Join(pats, "|"), k.name)
		}
	}
	for _, l := range words {
		fmt.Fprint(w, l)
	}
	fmt.Fprint(w, `    esac
}

# _ragctl_flags CMD prints the flags of command CMD.
_ragctl_flags() {
    case "$1" in
`)
	for _, c := range cmds {
		if len(c.flags) > 0 {
			fmt.Fprintf(w, "    %s) echo %q ;;\n", c.name, flagNames(c.flags))
		}
	}
	fmt.Fprint(w, `    esac
}

# _ragctl_args CMD prints the words offered for the first argument of CMD.
_ragctl_args() {
    case "$1" in
`)
	for _, c := range cmds {
		if len(c.args) > 0 {
			fmt.Fprintf(w, "    %s) echo %q ;;\n", c.name, strings.Join(c.args, " "))
		}
	}
	fmt.Fprintf(w, `    esac
}

_ragctl_words() {
    COMPREPLY=($(compgen -W "$1" -- "$2"))
}

_ragctl_paths() {
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen "$1" -- "$2"))
}

_ragctl() {
    local cur="${COMP_WORDS[COMP_CWORD]}" flag="${COMP_WORDS[COMP_CWORD-1]}" cmd="" w arg i nargs=0 value=0
    COMPREPLY=()
    # Bash splits -flag=value at "=" (COMP_WORDBREAKS): "=" is a word of
    # its own, and the word being completed after it starts empty.
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        if [[ $w == = ]]; then
            value=1
        elif ((value)); then
            value=0
        elif [[ $w == -* ]]; then
            if [[ $w != *=* && -n "$(_ragctl_flag_arg "$cmd" "$w")" ]]; then
                value=1
            fi
        elif [[ -z $cmd ]]; then
            cmd="$w"
        else
            nargs=$((nargs + 1))
        fi
    done
    if [[ $cur == = ]]; then
        cur=""
        value=1
    elif [[ $flag == = ]]; then
        flag="${COMP_WORDS[COMP_CWORD-2]}"
    fi
    if ((value)); then
        arg="$(_ragctl_flag_arg "$cmd" "$flag")"
        case "$arg" in
        file) _ragctl_paths -f "$cur" ;;
        dir) _ragctl_paths -d "$cur" ;;
        words\ *) _ragctl_words "${arg#words }" "$cur" ;;
        esac
        return 0
    fi
    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            _ragctl_words %q "$cur"
        else
            _ragctl_words %q "$cur"
        fi
    elif [[ $cur == -* && ! ($nargs -eq 0 && -n "$(_ragctl_args "$cmd")") ]]; then
        _ragctl_words "$(_ragctl_flags "$cmd")" "$cur"
    elif ((nargs == 0)); then
        _ragctl_words "$(_ragctl_args "$cmd")" "$cur"
    fi
    return 0
}

complete -F _ragctl ragctl
`, flagNames(globalFlags), strings.Join(names, " "))
}

// zshQuote quotes s for zsh (and bash) in single quotes.
func zshQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// zshOption is an _arguments spec for f.
func zshOption(f flagSpec) string {
	desc := strings.NewReplacer(`[`, `\[`, `]`, `\]`, `\`, `\\`).Replace(f.usage)
	spec := "-" + f.name + "[" + desc + "]"
	switch f.arg {
	case argAny:
		spec += ":" + f.name + ": "
	case argFile:
		spec += ":file:_files"
	case argDir:
		spec += ":directory:_files -/"
	case argWords:
		spec += ":" + f.name + ":(" + strings.Join(f.words, " ") + ")"
	}
	return zshQuote(spec)
}

func writeZsh(w io.Writer, cmds []compCommand) {
	fmt.Fprint(w, `#compdef ragctl
# zsh completion for ragctl, generated by `+"`ragctl completion zsh`"+`.
# Install it as a file named _ragctl in a directory of $fpath, e.g.
#   ragctl completion zsh > ~/.zfunc/_ragctl   (with fpath+=(~/.zfunc) before compinit)
# or load it from ~/.zshrc after compinit with: source <(ragctl completion zsh)

_ragctl() {
  local curcontext="$curcontext" state state_descr line ret=1
  typeset -A opt_args

  _arguments -C \
`)
	for _, f := range globalFlags {
		fmt.Fprintf(w, "    %s \\\n", zshOption(f))
	}
	fmt.Fprint(w, `    '1:command:->command' \
    '*::argument:->argument' && ret=0

  case $state in
  command)
    local -a commands
    commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "      %s\n", zshQuote(c.name+":"+c.desc))
	}
	fmt.Fprint(w, `    )
    _describe -t commands 'ragctl command' commands && ret=0
    ;;
  argument)
    curcontext="${curcontext%:*:*}:ragctl-$words[1]:"
    case $words[1] in
`)
	for _, c := range cmds {
		var specs []string
		if len(c.args) > 0 {
			specs = append(specs, zshQuote("1:argument:("+strings.Join(c.args, " ")+")"))
		}
		for _, f := range c.flags {
			specs = append(specs, zshOption(f))
		}
		if len(specs) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %s)\n      _arguments \\\n        %s && ret=0\n      ;;\n", c.name, strings.Join(specs, " \\\n        "))
	}
	fmt.Fprint(w, `    esac
    ;;
  esac
  return ret
}

if [[ $funcstack[1] == _ragctl ]]; then
  _ragctl "$@"
else
  compdef _ragctl ragctl
fi
`)
}

// fishQuote quotes s for fish in single quotes.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishOption is the options of a complete command for f.
func fishOption(f flagSpec) string {
	s := "-o " + f.name
	switch f.arg {
	case argAny:
		s += " -x"
	case argFile:
		s += " -r -F"
	case argDir:
		s += " -x -a '(__fish_complete_directories)'"
	case argWords:
		s += " -x -a " + fishQuote(strings.Join(f.words, " "))
	}
	return s + " -d " + fishQuote(f.usage)
}

func writeFish(w io.Writer, cmds []compCommand) {
	fmt.Fprint(w, `# fish completion for ragctl, generated by `+"`ragctl completion fish`"+`.
# Install it with
#   ragctl completion fish > ~/.config/fish/completions/ragctl.fish

# __ragctl_words prints the command being completed and the arguments
# after it, leaving out flags and the values of global flags.
function __ragctl_words
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l value 0
    set -l found 0
    for t in $tokens
        if test $value = 1
            set value 0
        else if string match -q -- '-*' $t
            if test $found = 0
                switch (string replace -r -- '^--?' '' $t)
`)
	for _, f := range globalFlags {
		if f.arg != argNone {
			fmt.Fprintf(w, "                    case %s\n                        set value 1\n", f.name)
		}
	}
	fmt.Fprint(w, `                end
            end
        else
            echo $t
            set found 1
        end
    end
end

function __ragctl_needs_command
    test (count (__ragctl_words)) -eq 0
end

function __ragctl_using --argument-names cmd
    set -l w (__ragctl_words)
    test (count $w) -ge 1; and test "$w[1]" = "$cmd"
end

function __ragctl_needs_arg --argument-names cmd
    set -l w (__ragctl_words)
    test (count $w) -eq 1; and test "$w[1]" = "$cmd"
end

complete -c ragctl -f
`)
	for _, f := range globalFlags {
		fmt.Fprintf(w, "complete -c ragctl -n __ragctl_needs_command %s\n", fishOption(f))
	}
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c ragctl -n __ragctl_needs_command -a %s -d %s\n", c.name, fishQuote(c.desc))
	}
	for _, c := range cmds {
		if len(c.args) > 0 {
			fmt.Fprintf(w, "complete -c ragctl -n %s -a %s\n", fishQuote("__ragctl_needs_arg "+c.name), fishQuote(strings.Join(c.args, " ")))
		}
		for _, f := range c.flags {
			fmt.Fprintf(w, "complete -c ragctl -n %s %s\n", fishQuote("__ragctl_using "+c.name), fishOption(f))
		}
	}
}
