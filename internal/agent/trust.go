package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/jsjson"
	"piweb/internal/sessionstore"
)

// Project trust (pi >= 0.79). pi loads a folder's project resources
// (.pi/settings.json, prompts, skills, extensions, ...) only once the folder
// is trusted; in RPC mode an undecided folder is silently skipped. These
// functions follow pi 1.6.0's core/trust-manager.js and project-trust.js:
// which resources need trust, the nearest saved decision in
// <agentDir>/trust.json, defaultProjectTrust from settings.json, and
// writing a decision as pi's own "Trust" choice does. piweb never trusts a
// folder unless the user asks (TrustProject).

// trustResources are the entries under <cwd>/.pi that need trust.
var trustResources = []string{"settings.json", "mcp.json", "extensions", "skills", "prompts", "themes",
	"SYSTEM.md", "APPEND_SYSTEM.md"}

// ProjectTrust says whether pi loads a folder's project resources
// (apitype.ProjectTrust, where the API's shapes are defined).
type ProjectTrust = apitype.ProjectTrust

// DefaultAgentDir is pi's agent dir when none is given: PI_CODING_AGENT_DIR
// or ~/.pi/agent.
func DefaultAgentDir() string {
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".pi", "agent")
}

// canonical is pi's canonicalizePath(resolvePath(p)).
func canonical(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// CheckProjectTrust reports the project trust of folder cwd for the pi
// whose agent dir is agentDir ("" for pi's default).
func CheckProjectTrust(agentDir, cwd string) (ProjectTrust, error) {
	if agentDir == "" {
		agentDir = DefaultAgentDir()
	}
	pt := ProjectTrust{Cwd: canonical(cwd), Resources: trustRequiring(cwd), Default: defaultTrust(agentDir)}
	data, err := readTrust(trustPath(agentDir))
	if err != nil {
		return pt, err
	}
	pt.DecidedFor, pt.Decision = nearestDecision(data, pt.Cwd)
	switch {
	case len(pt.Resources) == 0:
		pt.Trusted = pt.Decision == nil || *pt.Decision
	case pt.Decision != nil:
		pt.Trusted = *pt.Decision
	default:
		pt.Trusted = pt.Default == "always"
	}
	pt.Skipped = len(pt.Resources) > 0 && !pt.Trusted
	return pt, nil
}

// trustRequiring lists the resources of hasTrustRequiringProjectResources.
func trustRequiring(cwd string) []string {
	dir := canonical(cwd)
	out := []string{}
	for _, name := range trustResources {
		if _, err := os.Stat(filepath.Join(dir, ".pi", name)); err == nil {
			out = append(out, filepath.Join(".pi", name))
		}
	}
	home, _ := os.UserHomeDir()
	userSkills := filepath.Join(canonical(home), ".agents", "skills")
	for d := dir; ; d = filepath.Dir(d) {
		skills := filepath.Join(d, ".agents", "skills")
		if _, err := os.Stat(skills); err == nil && skills != userSkills {
			out = append(out, skills)
		}
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// defaultTrust reads defaultProjectTrust from the agent dir's settings.json.
func defaultTrust(agentDir string) string {
	var s struct{ DefaultProjectTrust string }
	if b, err := os.ReadFile(filepath.Join(agentDir, "settings.json")); err == nil {
		_ = json.Unmarshal(b, &s)
	}
	if s.DefaultProjectTrust == "always" || s.DefaultProjectTrust == "never" {
		return s.DefaultProjectTrust
	}
	return "ask"
}

func trustPath(agentDir string) string {
	abs, err := filepath.Abs(agentDir)
	if err != nil {
		abs = agentDir
	}
	return filepath.Join(abs, "trust.json")
}

// readTrust reads trust.json as pi does (a missing file is empty; values
// must be true, false or null).
func readTrust(path string) (map[string]*bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]*bool{}, nil
	} else if err != nil {
		return nil, fmt.Errorf("read trust store: %w", err)
	}
	b = []byte(trimBOM(string(b)))
	var data map[string]*bool
	if err := json.Unmarshal(b, &data); err != nil || data == nil {
		return nil, fmt.Errorf("invalid trust store %s: expected an object of true, false or null", path)
	}
	return data, nil
}

func trimBOM(s string) string {
	if len(s) >= 3 && s[:3] == "\xef\xbb\xbf" {
		return s[3:]
	}
	return s
}

// nearestDecision walks from dir up to the root for a saved decision.
func nearestDecision(data map[string]*bool, dir string) (string, *bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if v, ok := data[d]; ok && v != nil {
			return d, v
		}
		if filepath.Dir(d) == d {
			return "", nil
		}
	}
}

// TrustProject saves the user's decision to trust folder cwd in trust.json,
// as pi's "Trust" choice does (the key is the canonical folder; the file's
// keys sorted, JSON.stringify(data, null, 2) plus a newline), under pi's
// lock (the trust.json.lock folder proper-lockfile makes). The file is
// replaced atomically, the previous one kept as a backup. pi started afterwards on that folder loads its
// project resources.
func TrustProject(agentDir, cwd string) error {
	if agentDir == "" {
		agentDir = DefaultAgentDir()
	}
	path := trustPath(agentDir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	release, err := lockTrust(path)
	if err != nil {
		return err
	}
	defer release()
	data, err := readTrust(path)
	if err != nil {
		return err
	}
	t := true
	data[canonical(cwd)] = &t
	return replaceFile(path, encodeTrust(data))
}

// encodeTrust is pi's writeTrustFile encoding.
func encodeTrust(data map[string]*bool) []byte {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := []byte("{")
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n  "...)
		out = jsjson.AppendString(out, k)
		out = append(out, ": "...)
		switch v := data[k]; {
		case v == nil:
			out = append(out, "null"...)
		case *v:
			out = append(out, "true"...)
		default:
			out = append(out, "false"...)
		}
	}
	if len(keys) > 0 {
		out = append(out, '\n')
	}
	return append(out, "}\n"...)
}

// lockTrust takes pi's lock on the trust store: proper-lockfile's
// mkdir of <path>.lock, taken over when older than its 10 s stale time.
func lockTrust(path string) (func(), error) {
	lock := path + ".lock"
	for attempt := 0; attempt < 50; attempt++ {
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			return func() { os.Remove(lock) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("lock trust store: %w", err)
		}
		if fi, err := os.Stat(lock); err == nil && time.Since(fi.ModTime()) > 10*time.Second {
			os.Remove(lock)
			continue
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, errors.New("lock trust store: trust.json is locked by another pi")
}

// replaceFile writes trust.json as piweb rewrites any file
// (session.RewriteFile): a synced temp file renamed into place, the
// previous file kept as a backup (trust.json.piweb-backup-<time>+<size>), never
// truncated; a new file appears whole (session.CreateFile).
func replaceFile(path string, data []byte) error {
	_, err := sessionstore.RewriteFile(path, data, -1)
	if errors.Is(err, fs.ErrNotExist) {
		err = sessionstore.CreateFile(path, data)
	}
	if err != nil {
		return fmt.Errorf("write trust store: %w", err)
	}
	return nil
}
