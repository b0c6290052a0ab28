package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"
)

// str reads an optional string; ok is false when it is absent or invalid.
func (v *validator) str(t map[string]any, prefix, name string) (s string, line int, ok bool) {
	val, present := t[name]
	if !present {
		return "", 0, false
	}
	key := keyJoin(prefix, name)
	line = v.pos.line(key, prefix)
	if s, ok = val.(string); !ok {
		v.add(line, key, "expected a string, got %s", describe(val))
	}
	return s, line, ok
}

// bool reads an optional boolean.
func (v *validator) bool(t map[string]any, prefix, name string) (b bool, line int, ok bool) {
	val, present := t[name]
	if !present {
		return false, 0, false
	}
	key := keyJoin(prefix, name)
	line = v.pos.line(key, prefix)
	if b, ok = val.(bool); !ok {
		v.add(line, key, "expected true or false, got %s", describe(val))
	}
	return b, line, ok
}

// duration reads an optional duration written as a string ("150ms", "10m")
// or as 0.
func (v *validator) duration(t map[string]any, prefix, name string) (d time.Duration, line int, ok bool) {
	val, present := t[name]
	if !present {
		return 0, 0, false
	}
	key := keyJoin(prefix, name)
	line = v.pos.line(key, prefix)
	switch x := val.(type) {
	case int64:
		if x == 0 {
			return 0, line, true
		}
	case string:
		d, err := time.ParseDuration(x)
		if err == nil && d >= 0 {
			return d, line, true
		}
		v.add(line, key, "%s is not a duration: write it like \"150ms\", \"30s\" or \"10m\"", quote(x))
		return 0, line, false
	}
	v.add(line, key, "expected a duration string like \"10m\", got %s", describe(val))
	return 0, line, false
}

// int reads an optional integer; a float with no fractional part is
// accepted too (1e3). Callers check the range before converting to int.
func (v *validator) int(t map[string]any, prefix, name string) (n int64, line int, ok bool) {
	val, present := t[name]
	if !present {
		return 0, 0, false
	}
	key := keyJoin(prefix, name)
	line = v.pos.line(key, prefix)
	switch x := val.(type) {
	case int64:
		return x, line, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) <= 1<<53 {
			return int64(x), line, true
		}
	}
	v.add(line, key, "expected a whole number, got %s", describe(val))
	return 0, line, false
}

// float reads an optional finite number (integer or float).
func (v *validator) float(t map[string]any, prefix, name string) (f float64, line int, ok bool) {
	val, present := t[name]
	if !present {
		return 0, 0, false
	}
	key := keyJoin(prefix, name)
	line = v.pos.line(key, prefix)
	switch x := val.(type) {
	case int64:
		return float64(x), line, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			v.add(line, key, "must be a finite number, got %s", fmtNum(x))
			return 0, line, false
		}
		return x, line, true
	}
	v.add(line, key, "expected a number, got %s", describe(val))
	return 0, line, false
}

// describe names a decoded TOML value's type, with the value for scalars:
// `string "ten"`, `integer 3`, `array`.
func describe(val any) string {
	switch x := val.(type) {
	case string:
		return "string " + quote(x)
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return "float " + fmtNum(x)
	case bool:
		return fmt.Sprintf("boolean %t", x)
	case time.Time:
		return fmt.Sprintf("date-time %v", x)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", val)
}

func fmtNum(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	if math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// quote quotes s for a message, shortening very long values.
func quote(s string) string {
	const max = 80
	if len(s) > max {
		r := []rune(s)
		if len(r) > max {
			return fmt.Sprintf("%q...", string(r[:max]))
		}
	}
	return fmt.Sprintf("%q", s)
}

// resolvedNote tells where a relative or "~" path resolved to.
func resolvedNote(written, resolved string) string {
	if written == resolved {
		return ""
	}
	return fmt.Sprintf(" (resolved to %s)", quote(resolved))
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// suggest returns the known key closest to k, or "" if none is close.
func suggest(k string, known []string) string {
	lk := strings.ToLower(k)
	best, bestD := "", math.MaxInt
	for _, c := range known {
		if strings.HasSuffix(c, "_"+lk) || strings.HasPrefix(c, lk+"_") && len(lk) >= 3 {
			return c // "k1" -> "bm25_k1"
		}
		if d := levenshtein(lk, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(1, len(best)/3) {
		return best
	}
	return ""
}

// levenshtein is the edit distance between a and b, in bytes.
func levenshtein(a, b string) int {
	if len(a) > 256 { // no key is that long; don't spend time on it
		return len(a)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// path resolves a configured path, reporting empty values and bad "~".
func (v *validator) path(line int, key, s string) (string, bool) {
	if s == "" {
		v.add(line, key, "must not be empty")
		return "", false
	}
	p, err := resolvePath(s, v.baseDir)
	if err != nil {
		v.add(line, key, "%s: %v", quote(s), err)
		return "", false
	}
	return p, true
}
