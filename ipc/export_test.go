package ipc

// peerCredentialsChecked is exported to the external tests.
func PeerCredentialsChecked() bool { return peerCredentials }

// PollUnread is pollUnread, for the external tests: it asks the kernel
// each time, where Yield's looks are spaced out.
func (l *Listener) PollUnread() bool { return l.pollUnread() }
