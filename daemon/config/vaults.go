package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// vaults validates the [[vault]] tables (each one's name, folder, include
// and exclude globs, size limit and watch setting) and that no two share
// a name.
func (v *validator) vaults(raw any) []Vault {
	elems, ok := v.arrayOfTables(raw, "vault")
	if !ok {
		return nil
	}
	var out []Vault
	names := map[string]int{} // name -> index of first vault using it
	for i, e := range elems {
		key := keyIndex("vault", i)
		t, ok := e.(map[string]any)
		if !ok {
			v.add(v.pos.line(key, "vault"), key, "expected a table, got %s", describe(e))
			continue
		}
		vault := v.vault(t, key)
		if vault.Name == "" { // missing or invalid, already reported
			continue
		}
		if first, dup := names[vault.Name]; dup {
			firstKey := keyIndex("vault", first)
			where := firstKey
			if l := v.pos.line(firstKey+".name", firstKey); l > 0 {
				where += fmt.Sprintf(" at line %d", l)
			}
			nameKey := key + ".name"
			v.add(v.pos.line(nameKey, key), nameKey, "duplicate vault name %q (already used by %s)", vault.Name, where)
			continue
		}
		names[vault.Name] = i
		out = append(out, vault)
	}
	return out
}

// vault validates one [[vault]] table; key is its path, e.g. "vault[1]".
// Fields with errors keep their zero or default values.
func (v *validator) vault(t map[string]any, key string) Vault {
	vault := Vault{
		Include:   slices.Clone(DefaultInclude),
		Exclude:   slices.Clone(DefaultExclude),
		MaxFileMB: DefaultMaxFileMB,
		Watch:     true,
	}
	header := v.pos.line(key, "vault")
	v.unknownKeys(t, key, vaultKeys, "in [[vault]]")

	if _, ok := t["name"]; !ok {
		v.add(header, key+".name", "required key is missing from this vault")
	} else if s, line, ok := v.str(t, key, "name"); ok {
		switch {
		case s == "":
			v.add(line, key+".name", "must not be empty")
		case strings.Trim(s, "._-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != "":
			v.add(line, key+".name", "%s is not a valid name: use only letters, digits, '.', '_' and '-'", quote(s))
		case s == "." || s == "..":
			v.add(line, key+".name", "%q is not a usable name", s)
		default:
			vault.Name = s
		}
	}

	if _, ok := t["path"]; !ok {
		v.add(header, key+".path", "required key is missing from this vault")
	} else if s, line, ok := v.str(t, key, "path"); ok {
		if p, ok := v.path(line, key+".path", s); ok {
			vault.Path = p
			v.checkDir(line, key+".path", s, p)
		}
	}

	if pats, ok := v.globs(t, key, "include"); ok {
		if len(pats) == 0 {
			k := key + ".include"
			v.add(v.pos.line(k, key), k, "an empty list matches no files; leave include out to get the defaults (%s)", strings.Join(DefaultInclude, ", "))
		}
		vault.Include = pats
	}
	if pats, ok := v.globs(t, key, "exclude"); ok {
		for _, p := range pats {
			if !slices.Contains(vault.Exclude, p) {
				vault.Exclude = append(vault.Exclude, p)
			}
		}
	}
	if f, line, ok := v.float(t, key, "max_file_mb"); ok && v.inRange(line, key+".max_file_mb", f, 0, true, maxFileMB) {
		vault.MaxFileMB = f
	}
	if b, _, ok := v.bool(t, key, "watch"); ok {
		vault.Watch = b
	}
	return vault
}

// checkDir reports a vault path that is missing or not a directory.
func (v *validator) checkDir(line int, key, written, p string) {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg := quote(written) + " does not exist" + resolvedNote(written, p)
		if strings.Contains(written, "$") {
			msg += "; environment variables are not expanded"
		}
		v.add(line, key, "%s", msg)
	case err != nil:
		v.add(line, key, "cannot access %s%s: %v", quote(written), resolvedNote(written, p), unwrapPathErr(err))
	case !fi.IsDir():
		v.add(line, key, "%s is not a directory%s", quote(written), resolvedNote(written, p))
	}
}

// globs reads an array of doublestar patterns, validating each one.
func (v *validator) globs(t map[string]any, prefix, name string) ([]string, bool) {
	key := keyJoin(prefix, name)
	val, ok := t[name]
	if !ok {
		return nil, false
	}
	arr, ok := val.([]any)
	if !ok {
		msg := fmt.Sprintf("expected an array of glob patterns, got %s", describe(val))
		if s, isStr := val.(string); isStr {
			msg += fmt.Sprintf(" (write %s = [%s])", name, quote(s))
		}
		v.add(v.pos.line(key, prefix), key, "%s", msg)
		return nil, false
	}
	pats := make([]string, 0, len(arr))
	good := true
	for i, e := range arr {
		ek := keyIndex(key, i)
		line := v.pos.line(ek, key, prefix)
		s, isStr := e.(string)
		switch {
		case !isStr:
			v.add(line, ek, "expected a glob pattern string, got %s", describe(e))
		case s == "":
			v.add(line, ek, "empty glob pattern")
		case strings.HasPrefix(s, "./"):
			v.add(line, ek, "glob pattern %s never matches: patterns are relative to the vault root, without \"./\"", quote(s))
		case strings.HasPrefix(s, "/"):
			v.add(line, ek, "glob pattern %s must be relative to the vault root (no leading '/')", quote(s))
		case !doublestar.ValidatePattern(s):
			v.add(line, ek, "invalid glob pattern %s (check brackets, braces and trailing backslashes)", quote(s))
		default:
			pats = append(pats, s)
			continue
		}
		good = false
	}
	return pats, good
}
