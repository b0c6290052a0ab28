package opt

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/plugins"
)

// MaxBytes reads the max_bytes option of an extractor that takes no other
// options: the largest input it accepts, def when unset.
func MaxBytes(o plugins.Options, def int64) (int64, error) {
	if err := Known(o, "max_bytes"); err != nil {
		return 0, err
	}
	return Int(o, "max_bytes", def, 1)
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
