// Package demo sets up piweb's --demo mode: a throwaway agent dir seeded
// with sample sessions and projects that are compiled into the binary, and
// pi configured to talk to the built-in fake LLM, so a new user sees the
// whole app and can chat without an API key.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/sessionstore"
	"piweb/pisession"
)

//go:embed projects
var projects embed.FS

// Demo is a running demo environment. Close removes it.
type Demo struct {
	// Root holds everything; AgentDir is pi's agent dir inside it and
	// Projects the sample working directories.
	Root, AgentDir, Projects string
	// LLM is the fake model server pi is configured to use.
	LLM *fakellm.Server
	// Sessions are the seeded session ids, in seeding order.
	Sessions []string
	// keep is set when a user's session could not be moved out: Close
	// then leaves the folder in place.
	keep bool
}

// Setup creates the demo under a new temporary directory and starts the
// fake LLM on a loopback port.
func Setup() (*Demo, error) {
	root, err := os.MkdirTemp("", "piweb-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	d := &Demo{Root: root, AgentDir: filepath.Join(root, "agent"), Projects: filepath.Join(root, "projects")}
	if err := d.seed(time.Now()); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	d.LLM = fakellm.New(fakellm.Options{})
	url, err := d.LLM.Start("127.0.0.1:0")
	if err == nil {
		err = fakellm.SetupAgentDir(d.AgentDir, url)
	}
	if err != nil {
		d.Close()
		return nil, fmt.Errorf("demo: start the demo model: %w", err)
	}
	return d, nil
}

// Seed writes the sample projects and sessions into root without starting
// anything (tests and benchmarks use it).
func Seed(root string) (*Demo, error) {
	d := &Demo{Root: root, AgentDir: filepath.Join(root, "agent"), Projects: filepath.Join(root, "projects")}
	return d, d.seed(time.Now())
}

func (d *Demo) seed(now time.Time) error {
	if err := copyProjects(d.Projects); err != nil {
		return fmt.Errorf("demo: write projects: %w", err)
	}
	pathOf := func(f *file) string { return sessionPath(d.AgentDir, f) }
	for _, s := range samples(d.Projects, now, pathOf) {
		dir := filepath.Join(d.AgentDir, "sessions", pisession.EncodeCwd(s.cwd))
		if _, err := sessionstore.NewFile(dir, s.data); err != nil {
			return fmt.Errorf("demo: write session: %w", err)
		}
		d.Sessions = append(d.Sessions, s.id)
	}
	return nil
}

// sessionPath is where pisession.NewFile will put f, known in advance so a
// fork's header can name its parent.
func sessionPath(agentDir string, f *file) string {
	ts := iso(f.now)
	if len(f.lines) > 0 {
		ts = headerTimestamp(f)
	}
	return filepath.Join(agentDir, "sessions", pisession.EncodeCwd(f.cwd), pisession.FileName(ts, f.id))
}

func headerTimestamp(f *file) string {
	h := pisession.Parse(append(append([]byte{}, f.lines[0]...), '\n')).Header
	if h == nil {
		return ""
	}
	return h.Timestamp
}

func copyProjects(dst string) error {
	return fs.WalkDir(projects, "projects", func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("projects", p)
		target := filepath.Join(dst, rel)
		if de.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := projects.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

// Close stops the fake LLM and deletes the demo directory, unless it
// still holds a session started in a real folder that KeepUserSessions
// could not move out (or it was not called and there is one).
func (d *Demo) Close() error {
	if d.LLM != nil {
		d.LLM.Close()
	}
	if d.keep || d.UserSessions() > 0 {
		return fmt.Errorf("demo: %s kept: it holds sessions started in real folders", d.Root)
	}
	return os.RemoveAll(d.Root)
}

// NoPiHelp is what the demo prints when pi is not installed: install is
// the one command that installs the current pi (agent.InstallHint).
func NoPiHelp(install string) string {
	return "pi is not installed, so the demo can browse the sample sessions but not chat.\n" +
		"To chat with the built-in demo model, install pi:\n\n    " + install + "\n\nthen start piweb again."
}
