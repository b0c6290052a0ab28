package options

import (
	"strings"
	"testing"
	"time"
)

type inner struct {
	URL string `json:"base_url"`
}

type cfg struct {
	inner
	Size    int      `json:"size"`
	Ratio   float64  `json:"ratio"`
	On      bool     `json:"on"`
	Names   []string `json:"names"`
	Timeout Duration `json:"timeout"`
	Ptr     *string  `json:"ptr"`
	//lint:ignore U1000 present so that Decode is seen to refuse it as an option
	private int
}

func TestDecode(t *testing.T) {
	c := cfg{Size: 7, On: true, Timeout: Duration(time.Minute)}
	err := Decode(map[string]any{
		"base_url": "http://x", "size": int64(3), "ratio": 0.5, "names": []any{"a", "b"},
		"timeout": "1m30s", "ptr": "",
	}, &c)
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "http://x" || c.Size != 3 || c.Ratio != 0.5 || !c.On || len(c.Names) != 2 ||
		time.Duration(c.Timeout) != 90*time.Second || c.Ptr == nil || *c.Ptr != "" {
		t.Errorf("decoded %+v", c)
	}
	if err := Decode(map[string]any{"timeout": 2.5}, &c); err != nil || time.Duration(c.Timeout) != 2500*time.Millisecond {
		t.Errorf("seconds: %v, %v", c.Timeout, err)
	}
	if err := Decode(nil, &c); err != nil {
		t.Error(err)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"sise": 1, "Size": 2}, `unknown option "Size", "sise" (known options: base_url, names, on, ptr, ratio, size, timeout)`},
		{map[string]any{"private": 1}, `unknown option "private"`},
		{map[string]any{"size": "3"}, `option "size": cannot use string "3" as an integer`},
		{map[string]any{"size": 2.5}, `option "size": cannot use number 2.5 as an integer`},
		{map[string]any{"on": "yes"}, `option "on": cannot use string "yes" as true or false`},
		{map[string]any{"names": []any{"a", 1.0}}, `option "names": every element of the list must be a string, found a number`},
		{map[string]any{"names": "a"}, `option "names": cannot use string "a" as a list`},
		{map[string]any{"timeout": "10"}, `option "timeout": cannot use "10" as a duration`},
		{map[string]any{"timeout": -1}, `option "timeout": duration -1 is negative`},
		{map[string]any{"timeout": true}, `option "timeout": cannot use true as a duration`},
	} {
		err := Decode(tc.opts, &cfg{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	if err := Decode(map[string]any{}, cfg{}); err == nil {
		t.Error("non-pointer accepted")
	}
}
