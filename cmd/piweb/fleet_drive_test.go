package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/errs"
	"piweb/internal/fakellm"
	"piweb/internal/fleet"
	"piweb/internal/pgtest"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// fleetMachine is one piweb of a fleet test: its own agent dir, address
// (127.0.0.N) and project folder.
type fleetMachine struct {
	name, addr, project string
	run                 *serveRun
}

func (m *fleetMachine) base() string { return "http://" + m.addr }

// freeAddr is a free port on ip, for an address other machines are told
// before the piweb listens on it.
func freeAddr(t *testing.T, ip string) string {
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("no loopback address %s: %v", ip, err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startFleetMachine serves a fresh agent dir (one session in its project
// folder, pi talking to llm) as machine name at 127.0.0.N, pushing to
// the fleet at url and holding the fleet key in keyFile; extra flags
// follow.
func startFleetMachine(t *testing.T, name, ip, url, keyFile, llm string, extra ...string) *fleetMachine {
	m := &fleetMachine{name: name, addr: freeAddr(t, ip), project: t.TempDir()}
	agentDir := t.TempDir()
	if err := fakellm.SetupAgentDir(agentDir, llm+"/v1"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(agentDir, "sessions", "--project--")
	id := fmt.Sprintf("0199aaaa-bbbb-7ccc-8ddd-0000000000%02d", len(name))
	body := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-12-04T10:00:00.000Z","cwd":"` + m.project + `"}` + "\n"
	testkit.WriteFile(t, filepath.Join(dir, "2026-12-04T10-00-00-000Z_"+id+".jsonl"), body)
	args := append([]string{"--addr", m.addr, "--agent-dir", agentDir, "--pi", pitest.PiBin(t), "--fleet", url,
		"--machine", name, "--fleet-advertise", m.base(), "--fleet-key-file", keyFile}, extra...)
	m.run = startServeEnv(t, nil, args...)
	return m
}

// sseData reads a stream's events' data until ctx ends.
func sseData(ctx context.Context, t *testing.T, url string) <-chan map[string]any {
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET %s: %s, %s", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	ch := make(chan map[string]any, 4096)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, found := strings.CutPrefix(sc.Text(), "data: "); found {
				var d map[string]any
				if json.Unmarshal([]byte(data), &d) == nil {
					ch <- d
				}
			}
		}
	}()
	return ch
}

// waitEvent reads ch until an event satisfies ok.
func waitEvent(t *testing.T, ch <-chan map[string]any, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	return testkit.Await(t, ch, 60*time.Second, what, ok)
}

func eventType(typ string) func(map[string]any) bool {
	return func(d map[string]any) bool { return d["type"] == typ }
}

// TestFleetDrive: three piwebs as three machines of one fleet (their own
// agent dirs and addresses, real pi, one fake LLM, a real PostgreSQL). From
// machine a the user starts a session on machine b in one of b's folders,
// prompts it and reads the answer streamed back over a's SSE, aborts a
// second answer, and types into its terminal; b, which requires sign-in of
// its own users, refuses a forwarded request without the key or with a
// wrong one, and both refuse a route outside the allowlist. With b
// killed, driving it is unavailable while its sessions still read from
// the database.
func TestFleetDrive(t *testing.T) {
	testkit.Long(t)
	c := pgtest.Shared(t)
	roles := readmeRoles(t, c)
	keyFile := filepath.Join(t.TempDir(), "fleet.key")
	if err := os.WriteFile(keyFile, []byte("a fleet key for the three test machines\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	llm := fakellm.New(fakellm.Options{})
	ls := httptest.NewServer(llm)
	t.Cleanup(ls.Close)
	a := startFleetMachine(t, "a", "127.0.0.2", roles("a"), keyFile, ls.URL)
	b := startFleetMachine(t, "b", "127.0.0.3", roles("b"), keyFile, ls.URL, "--token", "only-b-users-have-this-token")
	startFleetMachine(t, "c", "127.0.0.4", roles("c"), keyFile, ls.URL)
	api := client.New(a.base(), client.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	onB := api.On("b")
	testkit.Eventually(t, func() error {
		ms, err := api.FleetMachines(ctx)
		if err != nil {
			return err
		}
		if len(ms.Machines) != 3 || !ms.Machines[1].Online || ms.Machines[1].Advertise != b.base() {
			return fmt.Errorf("machines %+v", ms.Machines)
		}
		return nil
	}, 60*time.Second, "the three machines online in the fleet")

	llm.Enqueue(fakellm.Text("Hello from machine b."))
	created, err := onB.Create(ctx, apitype.CreateRequest{Cwd: b.project, Message: "hi b"})
	if err != nil {
		t.Fatal(err)
	}
	s := "/api/sessions/" + created.ID
	events := sseData(ctx, t, a.base()+s+"/events?machine=b&lastEventId=0")
	end := waitEvent(t, events, "the first answer's message_end", func(d map[string]any) bool {
		return d["type"] == "message_end" && strings.Contains(fmt.Sprint(d["message"]), "Hello from machine b.")
	})
	_ = end
	waitEvent(t, events, "agent_end", eventType("agent_end"))

	hold := make(chan struct{})
	defer close(hold)
	llm.Enqueue(fakellm.Text("A long answer that the user stops.").WithChunks(6).WithHold(hold, 1))
	if _, err := onB.Command(ctx, created.ID, map[string]any{"type": "prompt", "message": "talk"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, "the held answer streaming", eventType("message_update"))
	if _, err := onB.Command(ctx, created.ID, map[string]any{"type": "abort"}); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, "the aborted answer's end", func(d map[string]any) bool {
		m, _ := d["message"].(map[string]any)
		return d["type"] == "message_end" && m["stopReason"] == "aborted"
	})

	driveTerminal(ctx, t, a, created.ID)
	refusals(ctx, t, a, b, s)
	if log := b.run.stderr.String(); !strings.Contains(log, `msg="fleet request" from=a method=POST path=`+s+"/commands") {
		t.Errorf("b's log lacks the prompts it served for a:\n%s", log)
	}

	testkit.Eventually(t, func() error { return second(onB.Session(ctx, created.ID)) }, 30*time.Second,
		"b's new session pushed to the fleet")
	b.run.stop()
	_, err = onB.Command(ctx, created.ID, map[string]any{"type": "prompt", "message": "anyone?"})
	if !errs.Is(err, errs.Unavailable) || client.StatusOf(err) != 502 {
		t.Errorf("a prompt to b killed: %v, want 502 unavailable", err)
	}
	ctxAnswer, err := onB.Context(ctx, created.ID, client.PageOptions{})
	if err != nil || len(ctxAnswer.Messages) < 2 {
		t.Errorf("b's session read from the database with b killed: %d messages, %v", len(ctxAnswer.Messages), err)
	}
}

// readmeRoles sets a fresh database up as the README does (owned by
// piweb_fleet, the schema created by the owner with piweb fleet migrate)
// and returns the URL of a machine's own role (a member of
// piweb_machine) by the machine's name.
func readmeRoles(t *testing.T, c *pgtest.Cluster) func(machine string) string {
	db := c.NewDB(t)
	for _, r := range []string{fleet.OwnerRole, fleet.MachineRole} {
		c.Exec(t, "postgres", `DO $$ BEGIN CREATE ROLE `+r+` NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`)
	}
	c.Exec(t, "postgres", "ALTER DATABASE "+db+" OWNER TO "+fleet.OwnerRole)
	role := func(name, group string) string {
		c.Exec(t, "postgres", "CREATE ROLE "+db+"_"+name+" LOGIN PASSWORD 'pw-"+name+"' IN ROLE "+group)
		t.Cleanup(func() {
			c.Exec(t, "postgres", "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
			c.Exec(t, "postgres", "DROP ROLE "+db+"_"+name)
		})
		return c.URL(db, db+"_"+name, "pw-"+name)
	}
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"fleet", "migrate", "--fleet", role("owner", fleet.OwnerRole)},
		func(string) string { return "" }, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("fleet migrate: %s%s", out.String(), errOut.String())
	}
	return func(machine string) string { return role(machine, fleet.MachineRole) }
}

// driveTerminal starts a terminal in b's session id through a and types
// into it over the WebSocket a pipes to b.
func driveTerminal(ctx context.Context, t *testing.T, a *fleetMachine, id string) {
	t.Helper()
	onB := client.New(a.base(), client.Options{}).On("b")
	term, err := onB.StartTerminal(ctx, id, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	conn, _, err := websocket.Dial(ctx, onB.TerminalSocketURL(id, term.ID), &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {a.base()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	if err := conn.Write(ctx, websocket.MessageBinary, []byte("echo typed-on-$((1+1))-machines\n")); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for !strings.Contains(out.String(), "typed-on-2-machines") {
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		_, p, err := conn.Read(rctx)
		cancel()
		if err != nil {
			t.Fatalf("the terminal's output through a: %v (so far %q)", err, out.String())
		}
		out.Write(p)
	}
}

// refusals: b refuses a forwarded request without the key's proof or
// with a wrong one; a and b refuse a route outside the allowlist.
func refusals(ctx context.Context, t *testing.T, a, b *fleetMachine, s string) {
	t.Helper()
	key := access.NewFleetKey("a fleet key for the three test machines").Proof("b", time.Now())
	for _, c := range []struct {
		what, base, method, path string
		header                   http.Header
		status                   int
	}{
		{"b without the key", b.base(), "GET", s + "/files", nil, 401},
		{"b with a wrong key", b.base(), "GET", s + "/files", http.Header{"Piweb-Fleet-Key": {"not the key"}, "Piweb-Fleet-Machine": {"b"}}, 401},
		{"b with the key on a route outside the allowlist", b.base(), "POST", s + "/rename",
			http.Header{"Piweb-Fleet-Key": {key}, "Piweb-Fleet-Machine": {"b"}}, 403},
		{"a forwarding a route outside the allowlist", a.base(), "POST", s + "/rename?machine=b", nil, 403},
		{"b with the key", b.base(), "GET", s + "/files", http.Header{"Piweb-Fleet-Key": {key}, "Piweb-Fleet-Machine": {"b"}}, 200},
	} {
		err := client.New(c.base, client.Options{Header: c.header}).Do(ctx, c.method, c.path, map[string]any{"name": "x"}, nil)
		if c.method == "GET" {
			err = client.New(c.base, client.Options{Header: c.header}).Do(ctx, c.method, c.path, nil, nil)
		}
		if got := client.StatusOf(err); got != c.status && !(c.status == 200 && err == nil) {
			t.Errorf("%s: %v, want status %d", c.what, err, c.status)
		}
	}
}
