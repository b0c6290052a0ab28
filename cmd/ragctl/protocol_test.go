package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// A daemon newer than ragctl still answers it; ragctl says, once, to
// upgrade itself.
func TestNewerDaemonSaysUpgradeRagctl(t *testing.T) {
	isolate(t)
	newer := ipc.ProtocolVersion + 1
	srv := ipctest.ServeHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(ipc.HeaderProtocol, strconv.Itoa(newer))
		w.Header().Set("Content-Type", "application/json")
		st := sampleStatus()
		st.Protocol = newer
		json.NewEncoder(w).Encode(st)
	}))
	t.Setenv("RAGD_SOCKET", srv.Socket)
	code, stdout, stderr := runCmd(t, "status")
	if code != exitOK || !strings.Contains(stdout, "notes") {
		t.Fatalf("status against a newer daemon: exit %d\n%s\n%s", code, stdout, stderr)
	}
	want := "ragd speaks protocol " + strconv.Itoa(newer) + ", this ragctl " + strconv.Itoa(ipc.ProtocolVersion) + ": upgrade ragctl"
	if strings.Count(stderr, want) != 1 {
		t.Errorf("stderr = %q, want %q once", stderr, want)
	}
}
