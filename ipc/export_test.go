package ipc

// peerCredentialsChecked is exported to the external tests.
func PeerCredentialsChecked() bool { return peerCredentials }
