// Package options decodes a plugin's [plugin.options] table into a typed
// struct. Keys are matched exactly against the struct's json tags; an
// unknown key or a value of the wrong type is an error that names the key,
// so a typo in ragd.toml is reported instead of silently ignored.
package options

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Decode fills dst, a pointer to a struct, from opts. Fields of dst keep
// their current values (set defaults before calling) unless opts names
// them. Anonymous struct fields are flattened, as encoding/json does.
func Decode(opts map[string]any, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("options.Decode: want pointer to struct, got %T", dst)
	}
	known := keys(rv.Elem().Type(), nil)
	var unknown []string
	for k := range opts {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		slices.Sort(known)
		return fmt.Errorf("unknown option %s (known options: %s)",
			quoteAll(unknown), strings.Join(known, ", "))
	}
	if len(opts) == 0 {
		return nil
	}
	// Decode key by key so that an error names the key it is about.
	names := make([]string, 0, len(opts))
	for k := range opts {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		b, err := json.Marshal(map[string]any{k: opts[k]})
		if err != nil {
			return fmt.Errorf("option %q: %w", k, err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			return fmt.Errorf("option %q: %s", k, describe(err, opts[k]))
		}
	}
	return nil
}

func quoteAll(ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// keys lists the json names of t's exported fields.
func keys(t reflect.Type, acc []string) []string {
	for f := range t.Fields() {
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				acc = keys(ft, acc)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		acc = append(acc, name)
	}
	return acc
}

func describe(err error, v any) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if _, list := v.([]any); list && te.Type.Kind() != reflect.Slice && te.Type.Kind() != reflect.Array {
			return fmt.Sprintf("every element of the list must be %s, found a %s", kindName(te.Type), te.Value)
		}
		return fmt.Sprintf("cannot use %s as %s", show(v), kindName(te.Type))
	}
	// Errors from UnmarshalJSON methods (Duration) carry their own text.
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}

// show describes an option value as TOML would name it.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case bool:
		return fmt.Sprint(x)
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	case nil:
		return "null"
	}
	return fmt.Sprintf("number %v", v)
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a table"
	}
	return t.String()
}

// Duration is a time.Duration option written as a Go duration string
// ("30s", "1m30s") or as a number of seconds.
type Duration time.Duration

// UnmarshalJSON accepts "30s" or 30 (seconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch x := v.(type) {
	case string:
		p, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("cannot use %q as a duration (write e.g. \"30s\" or \"2m\")", x)
		}
		if p < 0 {
			return fmt.Errorf("duration %q is negative", x)
		}
		*d = Duration(p)
	case float64:
		if x < 0 {
			return fmt.Errorf("duration %v is negative", x)
		}
		*d = Duration(x * float64(time.Second))
	default:
		return fmt.Errorf("cannot use %v as a duration (write e.g. \"30s\" or \"2m\")", v)
	}
	return nil
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}
