package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/session"
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
	dir := filepath.Join(agent, "sessions", session.EncodeCwd("/p"))
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
