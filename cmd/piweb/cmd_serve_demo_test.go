package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/client"
	"piweb/internal/demo"
	"piweb/internal/errs"
	"piweb/internal/pitest"
)

// TestServeDemoNoPi: without pi the demo still browses its sample
// sessions, and says how to install pi: on stderr, in /api/status and in
// the answer of an agent route.
func TestServeDemoNoPi(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s := startServeEnv(t, nil, "--demo", "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
	list := apiSessions(t, s.url)
	if len(list) < 3 {
		t.Fatalf("lists %d sessions, want the demo's", len(list))
	}
	if !strings.Contains(s.stderr.String(), demo.NoPiHelp(agent.InstallHint)) {
		t.Errorf("stderr lacks the install help:\n%s", s.stderr)
	}
	for _, stale := range []string{"@mariozechner", "--demo", "Node.js 20"} {
		if strings.Contains(demo.NoPiHelp(agent.InstallHint), stale) {
			t.Errorf("the install help names %q", stale)
		}
	}
	st := status(t, s.url)
	if !st.Demo || st.Pi.Found || st.Pi.Install != agent.InstallHint {
		t.Errorf("status %+v", st)
	}
	_, err := api(s.url, nil).Create(t.Context(), agent.CreateRequest{Cwd: list[0].Cwd, Message: "hi"})
	var e *client.Error
	if !errors.As(err, &e) || e.Status != 503 || e.Kind != errs.PiMissing || !strings.Contains(e.Message, agent.InstallHint) {
		t.Errorf("chat without pi: %v", err)
	}
}

// TestServeDemoChat: with pi installed the demo chats with the built-in
// model and no API key; stopping piweb stops every pi (the spare one
// included) and removes the throwaway demo folder.
func TestServeDemoChat(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s := startServeEnv(t, nil, "--demo", "--addr", "127.0.0.1:0", "--pi", pitest.PiBin(t))
	m := regexp.MustCompile(`Demo: sample sessions in (\S+),`).FindStringSubmatch(strings.Join(s.before, "\n"))
	if m == nil {
		t.Fatalf("no demo folder printed: %q", s.before)
	}
	root := m[1]
	if !regexp.MustCompile(`Using pi \d+\.\d+\.\d+ at /`).MatchString(strings.Join(s.before, "\n")) {
		t.Errorf("the start-up lines do not say which pi runs: %q", s.before)
	}
	if st := status(t, s.url); !st.Demo || !st.Pi.Found {
		t.Fatalf("status %+v", st)
	}
	c := api(s.url, nil)
	cwd := apiSessions(t, s.url)[0].Cwd
	created, err := c.Create(t.Context(), agent.CreateRequest{Cwd: cwd, Message: "hello from the demo test"})
	if err != nil || created.ID == "" {
		t.Fatalf("create: %v", err)
	}
	waitAgentEnd(t, c, created.ID)
	if text := lastAssistantText(t, c, created.ID); !strings.Contains(text, "built-in demo model") {
		t.Errorf("the demo model answered %q", text)
	}
	if len(childProcesses(t)) == 0 {
		t.Error("no pi process while the demo runs")
	}
	if code := s.stop(); code != 0 {
		t.Errorf("exit %d", code)
	}
	pitest.NoChildren(t, os.Getpid(), 10*time.Second)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("demo folder %s left behind: %v", root, err)
	}
}

// waitAgentEnd reads session id's event stream, from its start, until
// pi's agent_end.
func waitAgentEnd(t *testing.T, c *client.Client, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	events, err := c.SessionEvents(ctx, id, "0")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()
	for {
		ev, err := events.Next()
		if err != nil {
			t.Fatalf("stream ended without agent_end: %v", err)
		}
		if strings.HasPrefix(string(ev.Data), `{"type":"agent_end"`) {
			return
		}
	}
}

// lastAssistantText returns the text of session id's last message in
// context, which must be the assistant's.
func lastAssistantText(t *testing.T, c *client.Client, id string) string {
	t.Helper()
	ctx, err := c.Context(t.Context(), id, client.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var last struct {
		Role    string
		Content []struct{ Type, Text string }
	}
	if n := len(ctx.Messages); n > 0 {
		json.Unmarshal(ctx.Messages[n-1], &last)
	}
	if last.Role != "assistant" {
		t.Fatalf("context's last message %+v", last)
	}
	var text string
	for _, p := range last.Content {
		text += p.Text
	}
	return text
}

// childProcesses lists the live (not zombie) processes whose parent is
// this test process, as "pid comm", from /proc.
func childProcesses(t *testing.T) []string {
	t.Helper()
	return pitest.ChildProcesses(t, os.Getpid())
}

// TestSignalStopsWorkers: the piweb binary, sent SIGTERM, exits 0 and
// takes its pi processes (here the demo's spare worker) with it.
func TestSignalStopsWorkers(t *testing.T) {
	piBin := pitest.PiBin(t)
	bin := filepath.Join(t.TempDir(), "piweb")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--demo", "--addr", "127.0.0.1:0", "--pi", piBin)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	kids := pitest.SomeChildren(t, cmd.Process.Pid, 30*time.Second)
	pitest.Terminate(t, cmd, "piweb", 30*time.Second)
	for _, k := range kids {
		pid, _, _ := strings.Cut(k, " ")
		if stat, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && !strings.Contains(string(stat), ") Z ") {
			t.Errorf("pi process %s outlived piweb", k)
		}
	}
}
