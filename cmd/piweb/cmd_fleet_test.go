package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/errs"
	"piweb/internal/fleet"
	"piweb/internal/pgtest"
	"piweb/internal/testkit"
)

// TestMain runs the tests, or with asPiweb set, is piweb itself: a real
// client started by a test (pi, from its mcp.json) runs this binary.
func TestMain(m *testing.M) {
	if os.Getenv(asPiweb) == "1" {
		os.Exit(runProcess())
	}
	os.Exit(pgtest.Main(m))
}

// asPiweb makes the test binary piweb (TestMain).
const asPiweb = "PIWEB_TEST_AS_PIWEB"

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
	id := "0199aaaa-bbbb-7ccc-8ddd-000000000001"
	body := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-12-04T10:00:00.000Z","cwd":"/work"}` + "\n" +
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-12-04T10:01:00.000Z","message":{"role":"user","content":"hello fleet","timestamp":1796378460000}}` + "\n" +
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-12-04T10:01:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"provider":"fake","model":"m1","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.01,"output":0.02,"cacheRead":0,"cacheWrite":0,"total":0.03}},"stopReason":"stop","timestamp":1796378461000}}` + "\n"
	testkit.WriteFile(t, filepath.Join(dir, "2026-12-04T10-00-00-000Z_"+id+".jsonl"), body)
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	api := client.New(s.url, client.Options{})
	testkit.Eventually(t, func() error {
		st, err := api.Status(ctx)
		if err != nil || st.Fleet == nil || st.Fleet.Machine != "box" || st.Fleet.State != "current" {
			return fmt.Errorf("GET /api/status: fleet %+v (%v), want box current", st.Fleet, err)
		}
		return nil
	}, 10*time.Second, "the status to say current")
	list, err := api.Sessions(ctx, client.ListOptions{Fleet: true})
	if err != nil || list.Total != 1 || list.Sessions[0].Machine != "box" {
		t.Errorf("GET /api/sessions?fleet=1 = %+v, %v", list, err)
	}
	hits, err := api.Search(ctx, client.SearchOptions{Text: "hello", Fleet: true})
	if err != nil || len(hits.Hits) != 1 || hits.Hits[0].Machine != "box" || hits.Hits[0].EntryID != "u1" {
		t.Errorf("GET /api/search?fleet=1&q=hello = %+v, %v", hits, err)
	}
	usage, err := api.Usage(ctx, client.UsageOptions{By: "machine", Fleet: true})
	if err != nil || len(usage.Rows) != 1 || usage.Rows[0].Key != "box" || usage.Rows[0].Messages != 1 {
		t.Errorf("GET /api/usage?fleet=1&by=machine = %+v, %v", usage, err)
	}
	// A push of this machine reaches the page's index topic.
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "event: hello") && !strings.Contains(sc.Text(), `"hello"`) {
	}
	testkit.AppendFile(t, filepath.Join(dir, "2026-12-04T10-00-00-000Z_"+id+".jsonl"),
		`{"type":"session_info","id":"n1","parentId":"a1","timestamp":"2026-12-04T10:02:00.000Z","name":"Fleet test"}`+"\n")
	heard := false
	for !heard && sc.Scan() {
		heard = sc.Text() == `data: {"type":"fleet_changed","machine":"box"}`
	}
	if !heard {
		t.Errorf("no fleet_changed on /api/events: %v", sc.Err())
	}
	// Another machine's session reads from the database, read-only.
	other := t.TempDir()
	odir := filepath.Join(other, "sessions", "--srv--")
	oid := "0199aaaa-bbbb-7ccc-8ddd-000000000002"
	obody := strings.ReplaceAll(strings.ReplaceAll(body, id, oid), "hello fleet", "hello from the other machine")
	testkit.WriteFile(t, filepath.Join(odir, "2026-12-04T10-00-00-000Z_"+oid+".jsonl"), obody)
	startServeEnv(t, nil, "--addr", "127.0.0.1:0", "--agent-dir", other, "--pi", "/nonexistent/pi",
		"--fleet", url, "--machine", "other")
	var ctxAnswer apitype.Context
	testkit.Eventually(t, func() (err error) {
		ctxAnswer, err = api.On("other").Context(ctx, oid, client.PageOptions{})
		return err
	}, 30*time.Second, "the other machine's session through this one")
	if len(ctxAnswer.Messages) != 2 || !strings.Contains(string(ctxAnswer.Messages[0]), "hello from the other machine") {
		t.Errorf("the other machine's context: %+v", ctxAnswer)
	}
	machines, err := api.FleetMachines(ctx)
	if err != nil || machines.Self != "box" || len(machines.Machines) != 2 || !machines.Machines[0].Online {
		t.Errorf("GET /api/fleet/machines = %+v, %v", machines, err)
	}
	detail, err := api.On("other").Session(ctx, oid)
	if err != nil || detail.Session.ID != oid || detail.Session.Machine != "other" || !strings.HasPrefix(detail.Session.Path, odir) {
		t.Errorf("the other machine's detail: %+v, %v", detail.Session, err)
	}
	if _, err := api.On("nowhere").Session(ctx, oid); client.StatusOf(err) != http.StatusNotFound {
		t.Errorf("a session of an unknown machine: %v, want 404", err)
	}
	out, code := status("--fleet", c.URL("nosuchdb", pgtest.Superuser, ""), "--machine", "box")
	if code != 1 || !strings.Contains(out, "why: the fleet database does not exist") {
		t.Errorf("status of a missing database: exit %d:\n%s", code, out)
	}
	if s.stop() != 0 {
		t.Errorf("serve exited with an error: %s", s.stderr)
	}
}

// TestFleetOff: without --fleet, the fleet-wide answers say the fleet is
// off instead of answering for this machine alone.
func TestFleetOff(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u, stop, _ := startServe(t, "--addr", "127.0.0.1:0", "--demo", "--pi", "/nonexistent/pi")
	defer stop()
	api := client.New(u, client.Options{})
	ctx := t.Context()
	for _, c := range []struct {
		what string
		err  error
	}{
		{"the fleet's listing", second(api.Sessions(ctx, client.ListOptions{Fleet: true}))},
		{"the fleet's search", second(api.Search(ctx, client.SearchOptions{Text: "x", Fleet: true}))},
		{"the fleet's usage", second(api.Usage(ctx, client.UsageOptions{Fleet: true}))},
		{"usage by machine", second(api.Usage(ctx, client.UsageOptions{By: "machine"}))},
		{"another machine's session", second(api.On("m").Context(ctx, "x", client.PageOptions{}))},
		{"the fleet's machines", second(api.FleetMachines(ctx))},
	} {
		if client.StatusOf(c.err) != http.StatusBadRequest || !errs.Is(c.err, errs.Invalid) {
			t.Errorf("%s: %v, want 400 invalid", c.what, c.err)
		}
	}
}

// TestFleetMigrate: `piweb fleet migrate` creates the schema (and says
// so, twice the same), and a database that cannot be reached is said in
// words with a failing exit status.
func TestFleetMigrate(t *testing.T) {
	c := pgtest.Shared(t)
	url := c.URL(c.NewDB(t), pgtest.Superuser, "")
	migrate := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"fleet", "migrate"}, args...),
			func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
		return out.String() + errOut.String(), code
	}
	for range 2 {
		if out, code := migrate("--fleet", url); code != 0 || !strings.Contains(out, fmt.Sprintf("schema at version %d", fleet.SchemaVersion)) {
			t.Errorf("fleet migrate: exit %d: %s", code, out)
		}
	}
	if out, code := migrate("--fleet", "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"); code == 0 || !strings.Contains(out, "fleet database") {
		t.Errorf("fleet migrate of an unreachable database: exit %d: %s", code, out)
	}
	if _, code := migrate(); code == 0 {
		t.Error("fleet migrate without a URL succeeded")
	}
}

// second is the error of a call that answers a value and an error.
func second[T any](_ T, err error) error { return err }
