// Package opt reads the typed values of a plugin's options table
// (plugins.Options, decoded from JSON or TOML) for the built-in extractors.
package opt

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd/plugins"
)

// Known fails on a key that is not one of keys, so typos in ragd.toml are
// reported rather than ignored.
func Known(o plugins.Options, keys ...string) error {
	for k := range o {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("unknown option %q (known: %s)", k, strings.Join(keys, ", "))
		}
	}
	return nil
}

// Int returns the integer option key, or def when it is absent. It must be
// a whole number of at least minimum.
func Int(o plugins.Options, key string, def, minimum int64) (int64, error) {
	v, ok := o[key]
	if !ok || v == nil {
		return def, nil
	}
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, fmt.Errorf("option %q: %v is not a whole number", key, x)
		}
		n = int64(x)
	default:
		return 0, fmt.Errorf("option %q: want a number, got %T", key, v)
	}
	if n < minimum {
		return 0, fmt.Errorf("option %q: %d is less than %d", key, n, minimum)
	}
	return n, nil
}

// String returns the string option key, or def when it is absent.
func String(o plugins.Options, key, def string) (string, error) {
	v, ok := o[key]
	if !ok || v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("option %q: want a string, got %T", key, v)
	}
	return s, nil
}

// Duration returns the duration option key, given as a Go duration string
// ("90s", "2m") or a number of seconds, or def when it is absent. It must
// be positive.
func Duration(o plugins.Options, key string, def time.Duration) (time.Duration, error) {
	v, ok := o[key]
	if !ok || v == nil {
		return def, nil
	}
	var d time.Duration
	switch x := v.(type) {
	case string:
		var err error
		if d, err = time.ParseDuration(x); err != nil {
			return 0, fmt.Errorf("option %q: %v", key, err)
		}
	case float64:
		d = time.Duration(x * float64(time.Second))
	case int64:
		d = time.Duration(x) * time.Second
	case int:
		d = time.Duration(x) * time.Second
	default:
		return 0, fmt.Errorf("option %q: want a duration, got %T", key, v)
	}
	if d <= 0 {
		return 0, fmt.Errorf("option %q: must be positive", key)
	}
	return d, nil
}
