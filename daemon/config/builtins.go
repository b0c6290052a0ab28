package config

import (
	"regexp"
	"strings"
)

// Builtins describes the backends built into ragd, so that a [[plugin]]
// naming one is checked with the rest of the file: a misspelt builtin, a
// built-in of another kind, options it does not take or lacks, and what it
// needs installed (a model) are reported with their line and key, together
// with every other problem. The daemon's binary provides it (the config
// package does not link the backends); without it (ragctl) these checks
// are skipped.
type Builtins interface {
	// Kind returns the kind of the built-in named name, and whether there
	// is one.
	Kind(name string) (kind string, ok bool)
	// Names lists the built-ins.
	Names() []string
	// Check validates a built-in's options the way the backend does when
	// it starts, without starting it. An error about one option names it
	// as `option "NAME"`, as the backends' own messages do.
	Check(name string, opts map[string]any) error
}

// optionInMessage finds the option an error message is about.
var optionInMessage = regexp.MustCompile(`option "([^"]+)"`)

// checkBuiltin reports problems with the built-in of the plugin at key.
func (v *validator) checkBuiltin(p Plugin, key string, line int) {
	if v.builtins == nil || p.Builtin == "" {
		return
	}
	bkey := key + ".builtin"
	kind, ok := v.builtins.Kind(p.Builtin)
	if !ok {
		names := v.builtins.Names()
		msg := "unknown built-in " + quote(p.Builtin)
		if s := suggestName(p.Builtin, names); s != "" {
			msg += " (did you mean " + quote(s) + "?)"
		}
		v.add(line, bkey, "%s; built in: %s", msg, strings.Join(names, ", "))
		return
	}
	if p.Kind != "" && kind != p.Kind {
		v.add(line, bkey, "built-in %s is %s, not %s", quote(p.Builtin), article(kind), article(p.Kind))
		return
	}
	err := v.builtins.Check(p.Builtin, p.Options)
	if err == nil {
		return
	}
	msg := err.Error()
	okey, oline := bkey, line
	if m := optionInMessage.FindStringSubmatch(msg); m != nil {
		if _, given := p.Options[m[1]]; given {
			okey = key + ".options." + fmtSeg(m[1])
			oline = v.pos.line(okey, key+".options", key)
		} else if p.Options != nil {
			okey = key + ".options"
			oline = v.pos.line(okey, key)
		}
	}
	v.add(oline, okey, "%s", msg)
}

// suggestName is the built-in closest to name, if it is close: names are
// short and misspelt by ear ("uselight"), so up to half of one may differ.
func suggestName(name string, names []string) string {
	if s := suggest(name, names); s != "" {
		return s
	}
	best, bestD := "", len(name)
	for _, n := range names {
		if d := levenshtein(strings.ToLower(name), n); d < bestD {
			best, bestD = n, d
		}
	}
	if best != "" && bestD <= len(best)/2 {
		return best
	}
	return ""
}

// article puts "a" or "an" before a plugin kind.
func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
