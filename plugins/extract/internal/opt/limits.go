// Package opt holds what the built-in extractors share about their
// options: the max_bytes limit, decoded like every plugin option by
// plugins/internal/options, and the check of an input against it.
package opt

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/options"
)

// MaxBytes reads the options of an extractor whose only option is
// max_bytes: the largest input it accepts, def when unset.
func MaxBytes(o plugins.Options, def int64) (int64, error) {
	c := struct {
		MaxBytes int64 `json:"max_bytes"`
	}{def}
	if err := options.Decode(o, &c); err != nil {
		return 0, err
	}
	return c.MaxBytes, CheckMaxBytes(c.MaxBytes)
}

// CheckMaxBytes refuses a max_bytes under 1.
func CheckMaxBytes(n int64) error {
	if n < 1 {
		return fmt.Errorf("option \"max_bytes\": %d is less than 1", n)
	}
	return nil
}

// CheckInput refuses work that is cancelled or larger than maxBytes.
func CheckInput(ctx context.Context, data []byte, maxBytes int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if int64(len(data)) > maxBytes {
		return fmt.Errorf("%d bytes is more than max_bytes %d", len(data), maxBytes)
	}
	return nil
}
