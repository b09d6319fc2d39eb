package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/client"
	"piweb/internal/demo"
)

// TestParseServeFlags: serve's flags and their defaults, as issue 5 and
// docs/api.md list them.
func TestParseServeFlags(t *testing.T) {
	if DefaultAddr != "127.0.0.1:30141" {
		t.Errorf("DefaultAddr = %s", DefaultAddr)
	}
	dir := t.TempDir()
	keyFile, openKey := filepath.Join(dir, "key"), filepath.Join(dir, "open-key")
	if os.WriteFile(keyFile, []byte("the fleet key, long enough\n"), 0o600) != nil ||
		os.WriteFile(openKey, []byte("the fleet key, long enough\n"), 0o644) != nil || os.Chmod(openKey, 0o644) != nil {
		t.Fatal("cannot write the key files")
	}
	tests := []struct {
		name string
		args []string
		want serveFlags
		bad  bool
	}{
		{"defaults", nil, serveFlags{addr: DefaultAddr}, false},
		{"every flag", []string{"--addr", "0.0.0.0:8080", "--agent-dir", "/a", "--pi", "/bin/pi", "--token", "T123456789abcdef",
			"--open", "--demo", "--no-terminal", "--host", "x.example", "--host", "y.example", "--proxy", "10.0.0.1"},
			serveFlags{addr: "0.0.0.0:8080", agentDir: "/a", pi: "/bin/pi", token: "T123456789abcdef", open: true, demo: true, noTerminal: true,
				hosts: stringList{"x.example", "y.example"}, proxies: stringList{"10.0.0.1"}}, false},
		{"a short token beyond loopback", []string{"--addr", "0.0.0.0:8080", "--token", "T"}, serveFlags{}, true},
		{"a short token on loopback", []string{"--token", "T"}, serveFlags{addr: DefaultAddr, token: "T"}, false},
		{"single dash", []string{"-addr=:1", "-open"}, serveFlags{addr: ":1", open: true}, false},
		{"a positional argument", []string{"extra"}, serveFlags{}, true},
		{"an unknown flag", []string{"--port", "1"}, serveFlags{}, true},
		{"the fleet", []string{"--fleet", "postgres://m@db/fleet", "--machine", "laptop", "--fleet-share", "meta"},
			serveFlags{addr: DefaultAddr, fleet: fleetFlags{url: "postgres://m@db/fleet", machine: "laptop", share: "meta"}}, false},
		{"the fleet, shared in full by default", []string{"--fleet", "postgres://m@db/fleet", "--machine", "vm"},
			serveFlags{addr: DefaultAddr, fleet: fleetFlags{url: "postgres://m@db/fleet", machine: "vm", share: "full"}}, false},
		{"an unknown fleet share", []string{"--fleet", "postgres://m@db/fleet", "--fleet-share", "some"}, serveFlags{}, true},
		{"the fleet's address and key", []string{"--fleet", "postgres://m@db/fleet", "--machine", "vm",
			"--fleet-advertise", "http://vm.tailnet:30141", "--fleet-key-file", keyFile},
			serveFlags{addr: DefaultAddr, hosts: stringList{"vm.tailnet"}, fleetKey: access.NewFleetKey("the fleet key, long enough"),
				fleet: fleetFlags{url: "postgres://m@db/fleet", machine: "vm", share: "full", advertise: "http://vm.tailnet:30141", keyFile: keyFile}}, false},
		{"an advertised address that is not a URL", []string{"--fleet", "postgres://m@db/fleet", "--fleet-advertise", "vm:30141"}, serveFlags{}, true},
		{"a key others may read", []string{"--fleet", "postgres://m@db/fleet", "--fleet-key-file", openKey}, serveFlags{}, true},
		{"a key without the fleet", []string{"--fleet-key-file", keyFile}, serveFlags{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseServe(&env{stderr: io.Discard}, tt.args)
			if (err != nil) != tt.bad {
				t.Fatalf("err = %v, want error: %v", err, tt.bad)
			}
			if tt.bad {
				return
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(serveFlags{}, fleetFlags{}, access.FleetKey{})); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunDefaultsToServe: `piweb` whose first argument is a flag (or that
// has none) runs serve.
func TestRunDefaultsToServe(t *testing.T) {
	var errb bytes.Buffer
	code := run(context.Background(), []string{"--no-such-flag"}, func(string) string { return "" },
		strings.NewReader(""), io.Discard, &errb)
	if code != 2 || !strings.Contains(errb.String(), "piweb serve") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// status reads GET /api/status.
func status(t *testing.T, base string) apitype.Status {
	t.Helper()
	st, err := api(base, nil).Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestServeAgentDirDefault: without --agent-dir, serve uses
// $PI_CODING_AGENT_DIR, else ~/.pi/agent, and lists the sessions there.
func TestServeAgentDirDefault(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	byEnv, home := t.TempDir(), t.TempDir()
	tests := []struct {
		name     string
		seedRoot string
		env      map[string]string
		want     string
	}{
		{"PI_CODING_AGENT_DIR", byEnv, map[string]string{"PI_CODING_AGENT_DIR": filepath.Join(byEnv, "agent"), "HOME": home},
			filepath.Join(byEnv, "agent")},
		{"HOME", filepath.Join(home, ".pi"), map[string]string{"HOME": home}, filepath.Join(home, ".pi", "agent")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := demo.Seed(tt.seedRoot)
			if err != nil {
				t.Fatal(err)
			}
			s := startServeEnv(t, tt.env, "--addr", "127.0.0.1:0", "--pi", "/nonexistent/pi")
			st := status(t, s.url)
			if st.AgentDir != tt.want || st.Demo {
				t.Errorf("agentDir %s (demo %v), want %s", st.AgentDir, st.Demo, tt.want)
			}
			if n := len(apiSessions(t, s.url)); n != len(d.Sessions) {
				t.Errorf("lists %d sessions, want %d", n, len(d.Sessions))
			}
		})
	}
}

// apiSessions reads GET /api/sessions.
func apiSessions(t *testing.T, base string) []catalog.Item {
	t.Helper()
	list, err := api(base, nil).Sessions(t.Context(), client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return list.Sessions
}

// TestServeOpen: --open opens the printed URL, and nothing opens without it.
func TestServeOpen(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	old := openBrowser
	defer func() { openBrowser = old }()
	for _, open := range []bool{false, true} {
		var opened []string
		openBrowser = func(u string) { opened = append(opened, u) }
		args := []string{"--addr", "127.0.0.1:0", "--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi"}
		if open {
			args = append(args, "--open")
		}
		s := startServeEnv(t, nil, args...)
		s.stop()
		want := []string(nil)
		if open {
			want = []string{s.url}
		}
		if diff := cmp.Diff(want, opened); diff != "" {
			t.Errorf("--open=%v opened (-want +got):\n%s", open, diff)
		}
	}
}

// TestServeToken: --token requires the token even on loopback, as a bearer
// token or through the printed link, which stays valid.
func TestServeToken(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	s := startServeEnv(t, nil, "--addr", "127.0.0.1:0", "--token", "tok-123", "--agent-dir", t.TempDir(), "--pi", "/nonexistent/pi")
	if !strings.HasSuffix(s.url, "/auth?token=tok-123") {
		t.Fatalf("printed %s, want the token's sign-in link", s.url)
	}
	if got := listStatus(t, api(s.url, nil)); got != 401 {
		t.Errorf("without the token: %d", got)
	}
	bearer := client.New(strings.TrimSuffix(s.url, "auth?token=tok-123"),
		client.Options{Header: http.Header{"Authorization": {"Bearer tok-123"}}})
	if got := listStatus(t, bearer); got != 200 {
		t.Errorf("with the token: %d", got)
	}
	for range 2 {
		browser := &http.Client{Jar: &cookieJar{}}
		getStatus(t, browser, s.url)
		if got := listStatus(t, api(s.url, browser)); got != 200 {
			t.Errorf("after the link: %d", got)
		}
	}
}
