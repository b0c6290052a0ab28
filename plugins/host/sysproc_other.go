//go:build !linux

package host

import "os/exec"

// setPdeathsig does nothing outside Linux: there, plugins notice that the
// daemon died by polling their parent pid (see plugins.Serve).
func setPdeathsig(*exec.Cmd) {}

// setProcessGroup does nothing outside Linux: the plugin's own process is
// killed, its children are not.
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the plugin's process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
