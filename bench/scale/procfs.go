package scale

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// procKB returns a "kB" field of /proc/PID/status (VmHWM: peak resident
// set, VmRSS: resident set now), or 0 if it cannot be read.
func procKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times on Linux.
const clockTicks = 100

// procStat returns a process's parent and its user+system CPU seconds.
func procStat(pid int) (ppid int, cpu float64, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// The fields after the command name, which is in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, float64(ut+st) / clockTicks, true
}

// CPUSeconds returns a process's user and system CPU time so far (0 where
// /proc cannot say), in steps of 10 ms.
func CPUSeconds(pid int) float64 { return cpuSeconds(pid) }

// cpuSeconds returns a process's CPU time so far.
func cpuSeconds(pid int) float64 {
	_, cpu, _ := procStat(pid)
	return cpu
}

// descendants returns the processes started by pid, and theirs.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(p); ok {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

// childrenRSSKB returns the resident set of pid's descendants (plugin
// processes, for ragd), in kB. Callers add it to the one reading of pid's own
// VmRSS they report, so the tree is never smaller than the process alone.
func childrenRSSKB(pid int) int64 {
	var total int64
	for _, c := range descendants(pid) {
		total += procKB(c, "VmRSS")
	}
	return total
}

// diskBytes returns the space the files under dir take on disk (allocated
// blocks, as du counts them).
func diskBytes(dir string) int64 {
	var total int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				total += st.Blocks * 512
			} else {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

// maxRSSKB returns the peak resident set from a finished process's rusage
// (wait4), in kB.
func maxRSSKB(st *os.ProcessState) int64 {
	if st == nil {
		return 0
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
