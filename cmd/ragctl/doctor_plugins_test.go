package main

import (
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

func TestCheckPlugins(t *testing.T) {
	st := sampleStatus()
	st.Plugins = append(st.Plugins, ipc.PluginStatus{Name: "org", Kind: "extractor", State: ipc.PluginFailed,
		LastError: "plugin exited during start-up: boom"})
	st.Vector.LastError = "embedder embed: connection refused"
	cs := checkPlugins(st)
	if len(cs) != 2 || cs[0].Status != checkFail || !strings.Contains(cs[0].Detail, "org (extractor) is failed: plugin exited during start-up: boom") || cs[0].Fix == "" {
		t.Errorf("plugins check = %+v", cs[0])
	}
	if cs[1].Status != checkWarn || !strings.Contains(cs[1].Detail, "connection refused") {
		t.Errorf("semantic check = %+v", cs[1])
	}
	st = sampleStatus()
	st.Vector = nil
	cs = checkPlugins(st)
	if cs[0].Status != checkOK || !strings.Contains(cs[0].Detail, "2 running, 1 not needed yet (heuristic)") || cs[1].Detail != st.Semantic {
		t.Errorf("healthy = %+v", cs)
	}
}
