package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contribDir holds the service files, relative to this package.
var contribDir = filepath.Join("..", "..", "contrib")

// plistNode is an element of a property list.
type plistNode struct {
	XMLName xml.Name
	Text    string      `xml:",chardata"`
	Nodes   []plistNode `xml:",any"`
}

// plistDict pairs the keys of a <dict> with their values.
func plistDict(t *testing.T, d plistNode) map[string]plistNode {
	t.Helper()
	if d.XMLName.Local != "dict" || len(d.Nodes)%2 != 0 {
		t.Fatalf("not a dict of key/value pairs: <%s> with %d elements", d.XMLName.Local, len(d.Nodes))
	}
	m := map[string]plistNode{}
	for i := 0; i < len(d.Nodes); i += 2 {
		k := d.Nodes[i]
		if k.XMLName.Local != "key" {
			t.Fatalf("element %d of the dict is <%s>, want <key>", i, k.XMLName.Local)
		}
		if _, dup := m[k.Text]; dup {
			t.Errorf("key %s given twice", k.Text)
		}
		m[k.Text] = d.Nodes[i+1]
	}
	return m
}

func TestLaunchdPlist(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(contribDir, "launchd", "dev.ragd.ragd.plist"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name    `xml:"plist"`
		Version string      `xml:"version,attr"`
		Nodes   []plistNode `xml:",any"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if doc.Version != "1.0" || len(doc.Nodes) != 1 {
		t.Fatalf("want <plist version=\"1.0\"> holding one dict, got version %q and %d elements", doc.Version, len(doc.Nodes))
	}
	m := plistDict(t, doc.Nodes[0])
	str := func(key string) string {
		n, ok := m[key]
		if !ok || n.XMLName.Local != "string" {
			t.Errorf("%s is not a string: %+v", key, n)
		}
		return n.Text
	}
	if got := str("Label"); got != "dev.ragd.ragd" {
		t.Errorf("Label = %q", got)
	}
	var args []string
	for _, n := range m["ProgramArguments"].Nodes {
		args = append(args, n.Text)
	}
	if len(args) != 2 || !filepath.IsAbs(args[0]) || filepath.Base(args[0]) != "ragd" || args[1] != "run" {
		t.Errorf("ProgramArguments = %q, want [/…/ragd run]", args)
	}
	if n := m["RunAtLoad"]; n.XMLName.Local != "true" {
		t.Errorf("RunAtLoad is <%s>, want <true/>", n.XMLName.Local)
	}
	if _, ok := m["KeepAlive"]; !ok {
		t.Error("no KeepAlive")
	}
	for _, key := range []string{"StandardOutPath", "StandardErrorPath"} {
		if p := str(key); !strings.HasPrefix(p, "/Users/USERNAME/Library/Logs/") {
			t.Errorf("%s = %q, want a file in ~/Library/Logs (as /Users/USERNAME/…, which the README's sed replaces)", key, p)
		}
	}
}

func TestSystemdUnit(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(contribDir, "systemd", "ragd.service"))
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]map[string]string{}
	var cur map[string]string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && line[len(line)-1] == ']':
			cur = map[string]string{}
			sections[line[1:len(line)-1]] = cur
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || cur == nil {
				t.Fatalf("line %d: %q is neither a section nor key=value in one", n, line)
			}
			cur[k] = v
		}
	}
	for _, s := range []string{"Unit", "Service", "Install"} {
		if sections[s] == nil {
			t.Errorf("no [%s] section", s)
		}
	}
	want := map[string]map[string]string{
		"Service": {
			"ExecStart": "%h/.local/bin/ragd run", "Restart": "on-failure", "KillSignal": "SIGTERM",
			"TimeoutStopSec": "20", "NoNewPrivileges": "true", "PrivateTmp": "false",
		},
		"Install": {"WantedBy": "default.target"},
	}
	for s, kv := range want {
		for k, v := range kv {
			if got := sections[s][k]; got != v {
				t.Errorf("[%s] %s = %q, want %q", s, k, got, v)
			}
		}
	}
	if sections["Service"]["RestartSec"] == "" {
		t.Error("no RestartSec")
	}
	// Mount namespaces would hide or freeze the vaults.
	for _, k := range []string{"ProtectHome", "ProtectSystem", "ReadOnlyPaths", "InaccessiblePaths", "TemporaryFileSystem"} {
		if v, ok := sections["Service"][k]; ok {
			t.Errorf("%s=%s can keep ragd from reading the vaults", k, v)
		}
	}
}
