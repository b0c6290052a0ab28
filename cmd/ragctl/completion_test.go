package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every command of the table has a completion entry, and every entry a
// command.
func TestCompletionSpecsCoverCommands(t *testing.T) {
	names := map[string]bool{}
	for _, c := range commands {
		names[c.name] = true
		if _, ok := completionSpecs[c.name]; !ok {
			t.Errorf("command %q has no entry in completionSpecs (completion.go)", c.name)
		}
	}
	for name := range completionSpecs {
		if !names[name] {
			t.Errorf("completionSpecs has an entry for %q, which is not a command", name)
		}
	}
}

// defaultsLine matches the first line of a flag in flag.PrintDefaults
// output: "  -name", "  -name type" or "  -x\tusage".
var defaultsLine = regexp.MustCompile(`^  -(\S+)( \S+)?(?:\t.*)?$`)

// The flags in completionSpecs are those each command's FlagSet defines,
// with or without a value alike: each command is run with -h and its
// usage read back.
func TestCompletionSpecsMatchFlags(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // nothing should get as far as doing work
	for _, c := range commands {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			args := []string{"-h"}
			if spec := completionSpecs[c.name]; c.name == "graph" {
				args = []string{spec.args[0], "-h"} // graph parses flags after its query
			}
			var stderr bytes.Buffer
			c.run(ctx, &env{stdout: io.Discard, stderr: &stderr}, args)
			got := map[string]bool{} // flag name → takes a value
			for _, line := range strings.Split(stderr.String(), "\n") {
				if m := defaultsLine.FindStringSubmatch(line); m != nil {
					got[m[1]] = m[2] != ""
				}
			}
			want := map[string]bool{}
			for _, f := range completionSpecs[c.name].flags {
				if _, dup := want[f.name]; dup {
					t.Errorf("-%s listed twice", f.name)
				}
				want[f.name] = f.arg != argNone
				if (f.arg == argWords) != (len(f.words) > 0) {
					t.Errorf("-%s: words %q with arg kind %d", f.name, f.words, f.arg)
				}
				if f.usage == "" {
					t.Errorf("-%s has no usage", f.name)
				}
			}
			for name, value := range got {
				w, ok := want[name]
				switch {
				case !ok:
					t.Errorf("ragctl %s defines -%s, missing from completionSpecs", c.name, name)
				case w != value:
					t.Errorf("ragctl %s -%s: takes a value %v, completionSpecs says %v", c.name, name, value, w)
				}
			}
			for name := range want {
				if _, ok := got[name]; !ok {
					t.Errorf("completionSpecs lists -%s, which ragctl %s does not define (its -h output:\n%s)", name, c.name, stderr.String())
				}
			}
		})
	}
}

func completionScript(t *testing.T, shell string) string {
	t.Helper()
	code, stdout, stderr := runCmd(t, "completion", shell)
	if code != exitOK || stderr != "" {
		t.Fatalf("completion %s: exit %d, stderr %q", shell, code, stderr)
	}
	return stdout
}

func TestCompletionScriptsMentionEverything(t *testing.T) {
	isolate(t)
	for _, shell := range completionShells {
		script := completionScript(t, shell)
		// Word boundaries: "runs" must not be found only inside "reruns".
		for _, c := range commands {
			if !regexp.MustCompile(`(^|[\s'"|(:])` + regexp.QuoteMeta(c.name) + `([\s'"|):]|$)`).MatchString(script) {
				t.Errorf("%s script does not mention command %q", shell, c.name)
			}
			for _, f := range completionSpecs[c.name].flags {
				if !strings.Contains(script, "-"+f.name) && !strings.Contains(script, "-o "+f.name) && !strings.Contains(script, ":"+f.name) {
					t.Errorf("%s script does not mention flag -%s of %s", shell, f.name, c.name)
				}
			}
		}
	}
}

func TestCompletionUsage(t *testing.T) {
	isolate(t)
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}, {"completion", "-x"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitUsage || stdout != "" || stderr == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// writeScript writes the completion script for shell to a file.
func writeScript(t *testing.T, shell string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ragctl."+shell)
	if err := os.WriteFile(path, []byte(completionScript(t, shell)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The shells that are installed accept their scripts.
func TestCompletionSyntax(t *testing.T) {
	isolate(t)
	for _, shell := range completionShells {
		t.Run(shell, func(t *testing.T) {
			bin, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s is not installed", shell)
			}
			out, err := exec.Command(bin, "-n", writeScript(t, shell)).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("%s -n: %v\n%s", shell, err, out)
			}
		})
	}
}

// completionCases are command lines (the last word being completed) and
// what completing them must offer.
var completionCases = []struct {
	line      string
	want, not []string
	// bashOnly cases use -flag=value, which only the bash script handles.
	bashOnly bool
}{
	{line: "ragctl ", want: []string{"search", "status", "doctor", "completion", "version", "help"}},
	{line: "ragctl do", want: []string{"doctor"}, not: []string{"search"}},
	{line: "ragctl -", want: []string{"-socket"}},
	{line: "ragctl -socket /x.sock gr", want: []string{"graph"}},
	{line: "ragctl search -", want: []string{"-k", "-vault", "-path", "-json", "-socket"}, not: []string{"-watch"}},
	{line: "ragctl doctor -", want: []string{"-json", "-config", "-socket"}},
	{line: "ragctl graph ", want: []string{"backlinks", "links", "neighbors", "entities", "unresolved"}},
	{line: "ragctl graph entities -type ", want: []string{"note", "tag"}},
	{line: "ragctl completion ", want: []string{"bash", "zsh", "fish"}},
	{line: "ragctl doctor -config ", want: []string{"ragd.toml"}},
	{line: "ragctl eval -beir ", want: []string{"sub"}, not: []string{"ragd.toml"}},
	{line: "ragctl search graph ", not: []string{"backlinks"}},
	{line: "ragctl -socket=/x.sock gr", want: []string{"graph"}, bashOnly: true},
	{line: "ragctl doctor -config=", want: []string{"ragd.toml"}, bashOnly: true},
	{line: "ragctl doctor -json=true -", want: []string{"-config"}, bashOnly: true},
	{line: "ragctl graph entities -type=", want: []string{"note", "tag"}, bashOnly: true},
}

// completionDir is a working directory with a file and a directory to
// complete.
func completionDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ragd.toml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func checkCompletions(t *testing.T, line string, got, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !slices.Contains(got, w) && !slices.Contains(got, w+"/") {
			t.Errorf("%q: completions %q lack %q", line, got, w)
		}
	}
	for _, n := range not {
		if slices.Contains(got, n) {
			t.Errorf("%q: completions %q include %q", line, got, n)
		}
	}
}

// The bash script completes as intended, run as bash would.
func TestBashCompletion(t *testing.T) {
	isolate(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	script := writeScript(t, "bash")
	dir := completionDir(t)
	for _, tc := range completionCases {
		// Split the line into words as bash does, "=" being a word of its own.
		var words []string
		for _, w := range strings.Split(tc.line, " ") {
			for i, part := range strings.Split(w, "=") {
				if i > 0 {
					words = append(words, "=")
				}
				if part != "" || i == 0 {
					words = append(words, part)
				}
			}
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := "source " + script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "\n_ragctl\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tc.line, err, out)
			continue
		}
		checkCompletions(t, tc.line, strings.Fields(string(out)), tc.want, tc.not)
	}
}

// The fish script completes as intended, if fish is installed.
func TestFishCompletion(t *testing.T) {
	isolate(t)
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not installed")
	}
	script := writeScript(t, "fish")
	dir := completionDir(t)
	for _, tc := range completionCases {
		if tc.bashOnly {
			continue
		}
		cmd := exec.Command(fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, tc.line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", tc.line, err, out)
			continue
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			word, _, _ := strings.Cut(l, "\t")
			got = append(got, word)
		}
		checkCompletions(t, tc.line, got, tc.want, tc.not)
	}
}
