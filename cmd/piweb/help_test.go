package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/pisession"
)

// TestHelp: piweb --help (and -h, help) prints every command and exits 0;
// a command's own --help exits 0 too.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errs, code := runCLI(t, nil, args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
		for name := range commands {
			if !strings.Contains(out, "  "+name) {
				t.Errorf("%v: usage lacks %s:\n%s", args, name, out)
			}
		}
	}
	if _, _, code := runCLI(t, nil, "search", "--help"); code != 0 {
		t.Errorf("search --help: exit %d", code)
	}
}

// TestSearchPrintsSpaces: a hit's snippet keeps the spaces around the
// match, and the text stands apart from the columns before it.
func TestSearchPrintsSpaces(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", pisession.EncodeCwd("/p"))
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "2026-12-01T10-00-00-000Z_01c00000-0000-7000-8000-000000000001.jsonl"), []byte(
		`{"type":"session","version":3,"id":"01c00000-0000-7000-8000-000000000001","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/p"}`+"\n"+
			`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"alpha beta gamma delta epsilon","timestamp":1764583201000}}`+"\n"), 0o644)
	env := map[string]string{"PI_CODING_AGENT_DIR": agent, "HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	out, errs, code := runCLI(t, env, "search", "gamma")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "beta [gamma] delta") || !strings.Contains(out, "branch  alpha") {
		t.Errorf("search printed %q", out)
	}
}

// TestSearchFilters: piweb search reads the page's filters in its text:
// a project by its folder's name, a role, a date; an unknown filter or a
// bad date is said on stderr and the rest is searched.
func TestSearchFilters(t *testing.T) {
	agent := t.TempDir()
	write := func(cwd, id, role, day, text string) {
		dir := filepath.Join(agent, "sessions", pisession.EncodeCwd(cwd))
		os.MkdirAll(dir, 0o755)
		content := fmt.Sprintf("%q", text)
		if role == "assistant" {
			content = fmt.Sprintf(`[{"type":"text","text":%q}]`, text)
		}
		os.WriteFile(filepath.Join(dir, day+"T10-00-00-000Z_"+id+".jsonl"), []byte(
			`{"type":"session","version":3,"id":"`+id+`","timestamp":"`+day+`T10:00:00.000Z","cwd":"`+cwd+`"}`+"\n"+
				`{"type":"message","id":"e1","parentId":null,"timestamp":"`+day+`T10:00:01.000Z","message":{"role":"`+role+`","content":`+content+`,"timestamp":1764583201000}}`+"\n"), 0o644)
	}
	write("/src/api", "01c00000-0000-7000-8000-000000000001", "user", "2026-11-02", "zebra in api")
	write("/src/web", "01c00000-0000-7000-8000-000000000002", "user", "2026-11-03", "zebra in web")
	write("/src/web", "01c00000-0000-7000-8000-000000000003", "assistant", "2026-10-01", "zebra answered in october")
	env := map[string]string{"PI_CODING_AGENT_DIR": agent, "HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	for _, tt := range []struct {
		args       []string
		want, errs []string
	}{
		{[]string{"zebra"}, []string{"] in api", "] in web", "] answered"}, nil},
		{[]string{"zebra", "project:API"}, []string{"] in api"}, nil},
		{[]string{"zebra role:assistant"}, []string{"] answered"}, nil},
		{[]string{"zebra", "after:2026-11-03"}, []string{"] in web"}, nil},
		{[]string{"zebra", "project:web", "before:2026-11-01"}, []string{"] answered"}, nil},
		{[]string{"zebra", "colour:red", "after:2026-13-45", "project:web"}, []string{"] in web", "] answered"},
			[]string{`unknown filter "colour:"`, `after: "2026-13-45" is not a date`}},
		{[]string{"zebra", "project:nowhere"}, nil, []string{"no project is named nowhere"}},
	} {
		out, errs, code := runCLI(t, env, append([]string{"search"}, tt.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errs)
		}
		if n := strings.Count(strings.TrimSpace(out), "\n") + 1; out == "" && len(tt.want) > 0 || out != "" && n != len(tt.want) {
			t.Errorf("%v: %d hits, want %d:\n%s", tt.args, n, len(tt.want), out)
		}
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: no %q in\n%s", tt.args, w, out)
			}
		}
		for _, w := range tt.errs {
			if !strings.Contains(errs, w) {
				t.Errorf("%v: stderr %q lacks %q", tt.args, errs, w)
			}
		}
	}
}
