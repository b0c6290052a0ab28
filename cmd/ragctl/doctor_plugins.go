package main

import (
	"fmt"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// checkPlugins reports each plugin that is not healthy, and the embedding
// backlog when semantic search is on.
func checkPlugins(st *ipc.StatusResponse) []check {
	c := check{Name: "plugins", Status: checkOK}
	var bad, idle []string
	running := 0
	for _, p := range st.Plugins {
		switch p.State {
		case ipc.PluginRunning:
			running++
		case ipc.PluginIdle:
			idle = append(idle, p.Name)
		default:
			msg := fmt.Sprintf("%s (%s) is %s", p.Name, p.Kind, p.State)
			if p.LastError != "" {
				msg += ": " + p.LastError
			}
			bad = append(bad, msg)
		}
	}
	switch {
	case len(st.Plugins) == 0:
		c.Detail = "none configured"
	case len(bad) > 0:
		c.Status = checkFail
		c.Detail = strings.Join(bad, "; ")
		c.Fix = "check the plugin's command, arguments and options in ragd.toml (`ragctl plugins` shows restarts and errors; ragd's log has the plugin's own messages)"
	default:
		c.Detail = fmt.Sprintf("%d running", running)
		if len(idle) > 0 {
			c.Detail += fmt.Sprintf(", %d not needed yet (%s)", len(idle), strings.Join(idle, ", "))
		}
	}
	checks := []check{c}
	v := st.Vector
	if v == nil {
		return append(checks, check{Name: "semantic", Status: checkInfo, Detail: st.Semantic})
	}
	s := check{Name: "semantic", Status: checkOK,
		Detail: fmt.Sprintf("embedder %s: %d vectors, %d chunks waiting", v.Embedder, v.Vectors, v.Pending)}
	if v.LastError != "" {
		s.Status = checkWarn
		s.Detail += "; embedding paused: " + v.LastError
		s.Fix = "start or fix the embedder (see `ragctl plugins`); queries are answered by keywords meanwhile"
	}
	return append(checks, s)
}
