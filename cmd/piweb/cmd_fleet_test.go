package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestServeFleet: serve --fleet pushes the agent dir's sessions and
// `piweb fleet status` then finds nothing behind; a database that does
// not exist is reported in words, and serve keeps serving meanwhile.
func TestServeFleet(t *testing.T) {
	c := pgtest.Shared(t)
	db := c.NewDB(t)
	url := c.URL(db, pgtest.Superuser, "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	agentDir := t.TempDir()
	dir := filepath.Join(agentDir, "sessions", "--work--")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	id := "0199aaaa-bbbb-7ccc-8ddd-000000000001"
	body := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-12-04T10:00:00.000Z","cwd":"/work"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-12-04T10:01:00.000Z","message":{"role":"user","content":"hello fleet","timestamp":1796378460000}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "2026-12-04T10-00-00-000Z_"+id+".jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServeEnv(t, nil, "--addr", "127.0.0.1:0", "--agent-dir", agentDir, "--pi", "/nonexistent/pi",
		"--fleet", url, "--machine", "box")
	status := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"fleet", "status", "--agent-dir", agentDir}, args...),
			func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
		return out.String() + errOut.String(), code
	}
	testkit.Eventually(t, func() error {
		out, code := status("--fleet", url, "--machine", "box")
		if code != 0 || !strings.Contains(out, "behind: nothing") || !strings.Contains(out, "pushed: 1 of 1") {
			return fmt.Errorf("exit %d:\n%s", code, out)
		}
		return nil
	}, 30*time.Second, "fleet status to find everything pushed")
	out, code := status("--fleet", c.URL("nosuchdb", pgtest.Superuser, ""), "--machine", "box")
	if code != 1 || !strings.Contains(out, "why: the fleet database does not exist") {
		t.Errorf("status of a missing database: exit %d:\n%s", code, out)
	}
	if s.stop() != 0 {
		t.Errorf("serve exited with an error: %s", s.stderr)
	}
}
