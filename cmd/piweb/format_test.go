package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/pitest"
)

// These tests run the format commands exactly as the outside checks do and
// compare their output with real pi's answers for the same files.

// runCLI runs piweb with args and an environment of its own.
func runCLI(t *testing.T, envv map[string]string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return envv[k] }
	code := run(context.Background(), args, getenv, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func fixture(t *testing.T, parts ...string) string {
	return filepath.Join(append([]string{pitest.FixturesDir(t)}, parts...)...)
}

func TestContextCommand(t *testing.T) {
	o := pitest.V16.StartOracle(t)
	files := append([]string{fixture(t, "pi-0.73.1", "v3-basic-0.73.1.jsonl")}, pitest.V16.Gen(t, 21, 3)...)
	for _, f := range files {
		out, errs, code := runCLI(t, nil, "context", f)
		if code != 0 {
			t.Fatalf("context %s: exit %d: %s", f, code, errs)
		}
		pitest.CompareJSON(t, o.Call(t, "context", f), []byte(out))
		var leaves []string
		o.CallJSON(t, &leaves, "leaves", f)
		for _, leaf := range leaves {
			out, _, _ := runCLI(t, nil, "context", f, "--leaf", leaf)
			pitest.CompareJSON(t, o.Call(t, "context", f, leaf), []byte(out))
		}
	}
}

func TestTreeCommand(t *testing.T) {
	o := pitest.V16.StartOracle(t)
	for _, f := range append([]string{fixture(t, "pi-0.73.1", "v3-basic-0.73.1.jsonl")}, pitest.V16.Gen(t, 22, 3)...) {
		out, errs, code := runCLI(t, nil, "tree", f)
		if code != 0 {
			t.Fatalf("tree: exit %d: %s", code, errs)
		}
		pitest.CompareJSON(t, o.Call(t, "tree", f), []byte(out))
	}
}

func TestLsCommand(t *testing.T) {
	o := pitest.V16.StartOracle(t)
	agent := t.TempDir()
	files := pitest.V16.Gen(t, 23, 6)
	for i, f := range files {
		dir := filepath.Join(agent, "sessions", []string{"--a--", "--b--"}[i%2])
		os.MkdirAll(dir, 0o755)
		data, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
	}
	envv := map[string]string{"PI_CODING_AGENT_DIR": agent, "HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir()}
	listAll := func() []byte {
		want := o.Call(t, "listall", agent)
		var list []map[string]any
		json.Unmarshal(want, &list)
		for _, m := range list {
			delete(m, "allMessagesText")
		}
		want, _ = json.Marshal(list)
		return want
	}
	want := listAll()
	// The first ls --json reads the files without an index, the second
	// answers from the listing snapshot; then, with an index (piweb
	// index), through the index: with one file touched, and in a fresh
	// cache without a snapshot.
	touch := func() {
		f := filepath.Join(agent, "sessions", "--a--", filepath.Base(files[0]))
		mt := time.Now().Add(-time.Hour)
		if err := os.Chtimes(f, mt, mt); err != nil {
			t.Fatal(err)
		}
		want = listAll()
	}
	fresh := func() { envv["XDG_CACHE_HOME"] = t.TempDir() }
	steps := []struct {
		args   []string
		before func()
	}{
		{[]string{"ls", "--json"}, nil}, {[]string{"ls", "--json"}, nil}, {[]string{"ls", "--json", "--scan"}, nil},
		{[]string{"index"}, nil}, {[]string{"ls", "--json"}, touch},
		{[]string{"index"}, fresh}, {[]string{"ls", "--json"}, nil},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		out, errs, code := runCLI(t, envv, s.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", s.args, code, errs)
		}
		if s.args[0] == "ls" {
			pitest.CompareJSON(t, want, []byte(out))
		}
	}
}

// TestWriteCommands forks, renames and labels through the CLI and has pi
// open the results.
func TestWriteCommands(t *testing.T) {
	o := pitest.V16.StartOracle(t)
	src := filepath.Join(t.TempDir(), "s.jsonl")
	data, _ := os.ReadFile(fixture(t, "pi-0.73.1", "v3-basic-0.73.1.jsonl"))
	os.WriteFile(src, data, 0o644)
	if _, errs, code := runCLI(t, nil, "rename", src, "Renamed"); code != 0 {
		t.Fatalf("rename: %s", errs)
	}
	if _, errs, code := runCLI(t, nil, "label", src, "5653d4de", "the error"); code != 0 {
		t.Fatalf("label: %s", errs)
	}
	var opened struct {
		Name   string
		Labels map[string]struct{ Label string }
	}
	o.CallJSON(t, &opened, "open", src)
	if opened.Name != "Renamed" || opened.Labels["5653d4de"].Label != "the error" {
		t.Errorf("pi sees name %q, labels %v", opened.Name, opened.Labels)
	}
	for _, args := range [][]string{{"fork", src, "--entry", "dd05f903"}, {"fork", src, "--entry", "5653d4de", "--at"}} {
		out, errs, code := runCLI(t, nil, args...)
		if code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
		path := strings.TrimSpace(out)
		leaf := "5653d4de"
		if len(args) == 4 {
			leaf = "9e30f51b" // the user message's parent
		}
		pitest.CompareJSON(t, o.Call(t, "context", src, leaf), o.Call(t, "context", path))
	}
}

func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	good := fixture(t, "pi-0.73.1", "v3-basic-0.73.1.jsonl")
	if out, _, code := runCLI(t, nil, "check", good); code != 0 {
		t.Errorf("check of a good file: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(good)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, append(append([]byte{}, data...), `{"type":"message","id":"torn`...), 0o644)
	out, _, code := runCLI(t, nil, "check", bad)
	if code != 1 || !strings.Contains(out, ":19: truncated") {
		t.Errorf("check of a torn file: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, nil, "check", "--repair", bad)
	if code != 0 || !strings.Contains(out, "original kept as") {
		t.Errorf("repair: exit %d, want 0 (repaired)\n%s", code, out)
	}
	if out, _, code := runCLI(t, nil, "check", bad); code != 0 {
		t.Errorf("check after repair: exit %d\n%s", code, out)
	}
	backups, _ := filepath.Glob(bad + ".piweb-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups: %v", backups)
	}
	if kept, _ := os.ReadFile(backups[0]); !bytes.HasSuffix(kept, []byte(`"id":"torn`)) {
		t.Errorf("backup lost the torn line")
	}
}

// TestMigrateCommand migrates a v1 file and has pi open it without a
// rewrite of its own, with the context pi gives the original.
func TestMigrateCommand(t *testing.T) {
	o := pitest.V16.StartOracle(t)
	src := fixture(t, "pi-mono-v1", "before-compaction.jsonl")
	path := filepath.Join(t.TempDir(), "old.jsonl")
	data, _ := os.ReadFile(src)
	os.WriteFile(path, data, 0o644)
	out, errs, code := runCLI(t, nil, "migrate", path)
	if code != 0 || !strings.Contains(out, "original kept as") {
		t.Fatalf("migrate: exit %d: %s%s", code, out, errs)
	}
	var opened struct {
		Rewritten bool
		Context   json.RawMessage
	}
	o.CallJSON(t, &opened, "open", path)
	if opened.Rewritten {
		t.Errorf("pi migrated the file again")
	}
	pitest.CompareJSON(t, o.Call(t, "context", src), opened.Context)
}
