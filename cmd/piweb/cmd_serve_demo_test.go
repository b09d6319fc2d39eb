package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/demo"
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
	if !strings.Contains(s.stderr.String(), demo.NoPiHelp) {
		t.Errorf("stderr lacks the install help:\n%s", s.stderr)
	}
	st := status(t, s.url)
	if !st.Demo || st.Pi.Found || st.Pi.Install != agent.InstallHint {
		t.Errorf("status %+v", st)
	}
	body := `{"cwd":"` + list[0]["cwd"].(string) + `","message":"hi"}`
	resp, err := http.Post(s.url+"api/sessions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e struct {
		Error struct{ Code, Message string }
	}
	json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 503 || e.Error.Code != "pi_missing" || !strings.Contains(e.Error.Message, agent.InstallHint) {
		t.Errorf("chat without pi: %d %+v", resp.StatusCode, e)
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
	if st := status(t, s.url); !st.Demo || !st.Pi.Found {
		t.Fatalf("status %+v", st)
	}
	cwd := apiSessions(t, s.url)[0]["cwd"].(string)
	resp, err := http.Post(s.url+"api/sessions", "application/json",
		strings.NewReader(`{"cwd":"`+cwd+`","message":"hello from the demo test"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != 200 || created.ID == "" {
		t.Fatalf("create: status %d", resp.StatusCode)
	}
	waitAgentEnd(t, s.url+"api/sessions/"+created.ID+"/events?lastEventId=0")
	if text := lastAssistantText(t, s.url+"api/sessions/"+created.ID+"/context"); !strings.Contains(text, "built-in demo model") {
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

// waitAgentEnd reads a session's event stream until pi's agent_end.
func waitAgentEnd(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), `data: {"type":"agent_end"`) {
			return
		}
	}
	t.Fatalf("stream ended without agent_end: %v", sc.Err())
}

// lastAssistantText returns the text of the context's last message.
func lastAssistantText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct {
		Messages []struct {
			Role    string
			Content []struct{ Type, Text string }
		}
	}
	json.NewDecoder(resp.Body).Decode(&c)
	if len(c.Messages) == 0 || c.Messages[len(c.Messages)-1].Role != "assistant" {
		t.Fatalf("context %+v", c.Messages)
	}
	var text string
	for _, p := range c.Messages[len(c.Messages)-1].Content {
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
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("piweb after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("piweb did not exit within 30 s of SIGTERM")
	}
	for _, k := range kids {
		pid, _, _ := strings.Cut(k, " ")
		if stat, err := os.ReadFile("/proc/" + pid + "/stat"); err == nil && !strings.Contains(string(stat), ") Z ") {
			t.Errorf("pi process %s outlived piweb", k)
		}
	}
}
