// Package pitest gives tests access to real pi 0.73.1, which is piweb's test
// oracle: the pinned install under tools/pi (set up by scripts/setup.sh),
// node to run it, and the tools/pi/oracle.mjs script that answers questions
// about session files with pi's own SessionManager.
//
// When something is missing, tests fail under CI=true (CI must run them) and
// are skipped elsewhere, so a developer without node can still run the rest.
// Helpers are meant for _test.go files only.
package pitest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Version is the pi version every oracle answer comes from.
const Version = "0.73.1"

// setupHint tells the reader how to get what is missing.
const setupHint = "run scripts/setup.sh"

// Missing stops a test whose external dependency is absent: t.Fatalf when
// CI=true, because CI must exercise it, and t.Skipf otherwise.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true; %s)", msg, setupHint)
	}
	t.Skipf("%s (%s; skipping)", msg, setupHint)
}

// ModuleRoot is the directory holding piweb's go.mod, found by walking up
// from the working directory (go test runs in the package's directory).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("pitest: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("pitest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// PiDir is tools/pi, where package.json pins pi and oracle.mjs lives.
// It checks that npm ci has installed pi there.
func PiDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(ModuleRoot(t), "tools", "pi")
	pkg := filepath.Join(dir, "node_modules", "@mariozechner", "pi-coding-agent", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		Missing(t, "pi is not installed in %s", dir)
	}
	return dir
}

var nodeOnce struct {
	sync.Once
	path string
	err  error
}

// Node is the path of the node binary that runs pi and the oracle.
func Node(t testing.TB) string {
	t.Helper()
	nodeOnce.Do(func() {
		nodeOnce.path, nodeOnce.err = exec.LookPath("node")
	})
	if nodeOnce.err != nil {
		Missing(t, "node not found: %v", nodeOnce.err)
	}
	return nodeOnce.path
}

var piOnce struct {
	sync.Once
	version string
	err     error
}

// PiBin is tools/pi/node_modules/.bin/pi. The first call checks that it
// reports Version (pi prints its version on stderr, not stdout).
func PiBin(t testing.TB) string {
	t.Helper()
	Node(t)
	bin := filepath.Join(PiDir(t), "node_modules", ".bin", "pi")
	piOnce.Do(func() {
		out, err := exec.Command(bin, "--version").CombinedOutput()
		piOnce.version = strings.TrimSpace(string(out))
		piOnce.err = err
	})
	if piOnce.err != nil {
		Missing(t, "%s --version: %v: %s", bin, piOnce.err, piOnce.version)
	}
	if piOnce.version != Version {
		t.Fatalf("pitest: %s is version %q, want %q (%s)", bin, piOnce.version, Version, setupHint)
	}
	return bin
}

// FixturesDir is shared/fixtures, the files written by real pi that the
// team keeps beside the work tree (CI puts a copy of shared/ beside its
// clone); /work/shared/fixtures is the fallback.
func FixturesDir(t testing.TB) string {
	t.Helper()
	for _, dir := range []string{filepath.Join(ModuleRoot(t), "..", "shared", "fixtures"), "/work/shared/fixtures"} {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			abs, err := filepath.Abs(dir)
			if err != nil {
				t.Fatalf("pitest: %v", err)
			}
			return abs
		}
	}
	Missing(t, "shared/fixtures not found beside %s", ModuleRoot(t))
	return ""
}

// oracleScript is the path of oracle.mjs; it also checks node.
func oracleScript(t testing.TB) (node, script string) {
	t.Helper()
	return Node(t), filepath.Join(PiDir(t), "oracle.mjs")
}

// exitDetail makes a failed command's error readable: its stderr, or the error.
func exitDetail(err error, stderr []byte) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(bytes.TrimSpace(stderr)) > 0 {
		return fmt.Sprintf("%v: %s", err, bytes.TrimSpace(stderr))
	}
	return err.Error()
}
