package opt

import (
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

func TestOptions(t *testing.T) {
	o := plugins.Options{"n": float64(42), "f": 1.5, "s": "x", "d": "90s", "ds": float64(2), "neg": float64(-1)}
	if n, err := Int(o, "n", 1, 0); n != 42 || err != nil {
		t.Errorf("Int = %d, %v", n, err)
	}
	if n, err := Int(o, "missing", 7, 0); n != 7 || err != nil {
		t.Errorf("Int default = %d, %v", n, err)
	}
	for _, k := range []string{"f", "s", "neg"} {
		if _, err := Int(o, k, 0, 0); err == nil {
			t.Errorf("Int(%s) accepted", k)
		}
	}
	if d, err := Duration(o, "d", 0); d != 90*time.Second || err != nil {
		t.Errorf("Duration = %v, %v", d, err)
	}
	if d, err := Duration(o, "ds", 0); d != 2*time.Second || err != nil {
		t.Errorf("Duration seconds = %v, %v", d, err)
	}
	if _, err := Duration(o, "neg", 0); err == nil {
		t.Error("negative duration accepted")
	}
	if s, err := String(o, "s", ""); s != "x" || err != nil {
		t.Errorf("String = %q, %v", s, err)
	}
	if _, err := String(o, "n", ""); err == nil {
		t.Error("String of a number accepted")
	}
	if err := Known(o, "n"); err == nil {
		t.Error("unknown keys accepted")
	}
}
