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
)

// Version is a pi release number.
type Version struct{ Major, Minor, Patch int }

// MinVersion is the oldest pi whose RPC protocol piweb understands: the
// protocol was measured on 0.73.1 (docs: ../shared/spec/pi-rpc.md).
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
type Pi struct {
	Path    string
	Version Version
}

// ErrPiMissing is matched (errors.Is) by every error saying that pi could not
// be found, so the web UI can keep browsing sessions and explain how to
// install pi.
var ErrPiMissing = errors.New("pi not found")

// MissingError says where pi was looked for.
type MissingError struct {
	Path string // "" when searched on PATH
	Err  error
}

func (e *MissingError) Error() string {
	if e.Path == "" {
		return "pi not found on PATH (install it with `npm install -g @mariozechner/pi-coding-agent` or pass --pi): " + e.Err.Error()
	}
	return fmt.Sprintf("pi not found at %s: %v", e.Path, e.Err)
}

func (e *MissingError) Is(target error) bool { return target == ErrPiMissing }
func (e *MissingError) Unwrap() error        { return e.Err }

// TooOldError says that the pi found predates MinVersion.
type TooOldError struct {
	Path    string
	Version Version
}

func (e *TooOldError) Error() string {
	return fmt.Sprintf("pi %s at %s is too old: piweb needs at least %s (npm install -g @mariozechner/pi-coding-agent@latest)",
		e.Version, e.Path, MinVersion)
}

// Find locates pi (path, or "pi" on PATH when path is empty) and checks its
// version. The version comes from the package.json next to the resolved
// script when there is one, because `pi --version` costs ~1.4 s of Node
// start-up; otherwise pi is asked.
func Find(ctx context.Context, path string) (*Pi, error) {
	exe, err := lookPath(path)
	if err != nil {
		return nil, err
	}
	v, err := packageVersion(exe)
	if err != nil {
		v, err = askVersion(ctx, exe)
	}
	if err != nil {
		return nil, fmt.Errorf("find pi version of %s: %w", exe, err)
	}
	if v.Less(MinVersion) {
		return nil, &TooOldError{Path: exe, Version: v}
	}
	return &Pi{Path: exe, Version: v}, nil
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

// packageVersion finds pi-coding-agent's package.json above the real file
// behind exe (node_modules/.bin/pi links to dist/cli.js).
func packageVersion(exe string) (Version, error) {
	real, err := filepath.EvalSymlinks(exe)
	if err != nil {
		return Version{}, err
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		if v, ok := readPackageJSON(filepath.Join(dir, "package.json")); ok {
			return v, nil
		}
		if filepath.Dir(dir) == dir {
			return Version{}, errors.New("no pi-coding-agent package.json")
		}
	}
}

func readPackageJSON(path string) (Version, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Version{}, false
	}
	var pkg struct{ Name, Version string }
	if json.Unmarshal(b, &pkg) != nil || pkg.Name != "@mariozechner/pi-coding-agent" {
		return Version{}, false
	}
	v, err := ParseVersion(pkg.Version)
	return v, err == nil
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
