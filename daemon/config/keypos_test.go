package config

import "testing"

func TestScanPositions(t *testing.T) {
	src := "\ufeff# comment\r\n" + // 1
		"top = 1 # trailing\r\n" + // 2
		"[daemon]\n" + // 3
		"  socket = \"\"\"\n" + // 4
		"[[vault]]\n" + // 5: inside a multi-line string
		"name = 'x'\n" + // 6
		"\"\"\"\n" + // 7
		"\"log_level\" = 'info'\n" + // 8: quoted key
		"'data dir' = '''\n" + // 9
		"a\n" + // 10
		"'''''\n" + // 11: two quotes then the closing ones
		"[[ vault ]]\n" + // 12
		"name = \"a\\\"b\" # \"quoted\" = 1\n" + // 13
		"include = [\n" + // 14
		"  '**/*.md', # c\n" + // 15
		"  \"x,]\",\n" + // 16
		"]\n" + // 17
		"sub.dotted . key = 1\n" + // 18
		"[vault.extra]\n" + // 19: table in the last vault
		"x = 1\n" + // 20
		"[[vault]]\n" + // 21
		"t = { a = 1, b = [ {c = 2},\n" + // 22
		"  {c = 3} ] }\n" + // 23
		"odt = 1979-05-27 07:32:00Z\n" + // 24
		"[[vault.deep]]\n" + // 25
		"k = 1\n" + // 26
		"[[vault.deep]]\n" + // 27
		"\"\\u0041\\\\\" = 1\n" // 28
	pos := scanPositions([]byte(src))
	for key, line := range map[string]int{
		"top":                     2,
		"daemon":                  3,
		"daemon.socket":           4,
		"daemon.log_level":        8,
		`daemon."data dir"`:       9,
		"vault":                   12,
		"vault[0]":                12,
		"vault[0].name":           13,
		"vault[0].include":        14,
		"vault[0].include[0]":     15,
		"vault[0].include[1]":     16,
		"vault[0].sub":            18,
		"vault[0].sub.dotted":     18,
		"vault[0].sub.dotted.key": 18,
		"vault[0].extra":          19,
		"vault[0].extra.x":        20,
		"vault[1]":                21,
		"vault[1].t":              22,
		"vault[1].t.a":            22,
		"vault[1].t.b[0].c":       22,
		"vault[1].t.b[1]":         23,
		"vault[1].t.b[1].c":       23,
		"vault[1].odt":            24,
		"vault[1].deep[0]":        25,
		"vault[1].deep[0].k":      26,
		"vault[1].deep[1]":        27,
		`vault[1].deep[1]."A\\"`:  28,
	} {
		if got, ok := pos[key]; !ok || got != line {
			t.Errorf("line of %s = %d (found %v), want %d", key, got, ok, line)
		}
	}
	for _, key := range []string{"vault[2]", "name", `vault[0]."quoted"`} {
		if l, ok := pos[key]; ok {
			t.Errorf("unexpected key %s at line %d", key, l)
		}
	}
}

func TestScanPositionsGarbage(t *testing.T) {
	// Not valid TOML; the scanner must just terminate without panicking.
	for _, src := range []string{"", "[", "[[", "a = [", "a = {", "a = \"\"\"", "a = '''", "= =", "\"\\u12", "a.\n", "a = [{b = [", "\x00\x00", "a = \"\\"} {
		scanPositions([]byte(src))
	}
}

func TestFmtSeg(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "a-b_c9": "a-b_c9", "a b": `"a b"`, "": `""`, "a.b": `"a.b"`} {
		if got := fmtSeg(in); got != want {
			t.Errorf("fmtSeg(%q) = %s, want %s", in, got, want)
		}
	}
}
