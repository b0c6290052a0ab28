package opt

import (
	"context"
	"testing"

	"github.com/ragd/ragd/plugins"
)

func TestMaxBytes(t *testing.T) {
	if n, err := MaxBytes(nil, 7); n != 7 || err != nil {
		t.Errorf("default: %d %v", n, err)
	}
	if n, err := MaxBytes(plugins.Options{"max_bytes": int64(42)}, 7); n != 42 || err != nil {
		t.Errorf("set: %d %v", n, err)
	}
	for _, o := range []plugins.Options{{"max_bytes": 0.5}, {"max_bytes": int64(0)}, {"max_bytes": "big"}, {"timeout": "1s"}} {
		if _, err := MaxBytes(o, 7); err == nil {
			t.Errorf("%v accepted", o)
		}
	}
	if err := CheckInput(context.Background(), make([]byte, 8), 7); err == nil {
		t.Error("input over max_bytes accepted")
	}
}
