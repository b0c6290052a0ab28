//go:build !linux

package host

import "os/exec"

// setPdeathsig does nothing outside Linux: there, plugins notice that the
// daemon died by polling their parent pid (see plugins.Serve).
func setPdeathsig(*exec.Cmd) {}
