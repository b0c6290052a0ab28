//go:build !linux

package otheruser

import "os"

// ReexecWithoutDAC only clears env outside Linux: there tests that need an
// unreadable folder run as an ordinary user.
func ReexecWithoutDAC(env string) { os.Unsetenv(env) }
