//go:build linux

package host

import (
	"os/exec"
	"syscall"
)

// setPdeathsig has the kernel SIGKILL the plugin when the daemon dies,
// however it dies (a plugin also polls its parent pid; see plugins.Serve).
// The signal is tied to the thread that forked the child; Go threads only
// end when a goroutine locked to one exits, which ragd does not do.
func setPdeathsig(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
