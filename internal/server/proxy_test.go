package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/client"
	"piweb/internal/fleet"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// machineFleet is a fleet whose database has nothing but this machine's
// name (the proxy needs no more of it).
type machineFleet string

func (f machineFleet) Sessions(context.Context, catalog.ListQuery, string) (apitype.SessionList, error) {
	return apitype.SessionList{}, nil
}
func (f machineFleet) Search(context.Context, catalog.SearchQuery) (apitype.Search, error) {
	return apitype.Search{}, nil
}
func (f machineFleet) UsageSessions(context.Context, time.Time, int) ([]apitype.UsageSession, error) {
	return nil, nil
}
func (f machineFleet) Usage(context.Context, fleet.UsageQuery) ([]catalog.UsageRow, error) {
	return nil, nil
}
func (f machineFleet) Session(context.Context, string, string) (catalog.Meta, []byte, error) {
	return catalog.Meta{}, nil, fleet.ErrNoSession
}
func (f machineFleet) Machines(context.Context, time.Time) ([]fleet.MachineInfo, error) {
	return nil, nil
}
func (f machineFleet) Machine() string             { return string(f) }
func (f machineFleet) Status() apitype.FleetStatus { return apitype.FleetStatus{} }

// peerTable is the fleet's machines table as Peers.
type peerTable map[string]fleet.Peer

func (p peerTable) Peer(_ context.Context, name string, _ time.Time) (fleet.Peer, error) {
	if m, found := p[name]; found {
		return m, nil
	}
	return fleet.Peer{}, fleet.ErrNoMachine
}

const testFleetKey = "the-fleet-key-of-the-tests"

// seen is what the owning machine received of the last forwarded request.
type seen struct {
	mu     sync.Mutex
	header http.Header
	query  string
}

func (s *seen) last() (http.Header, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.header, s.query
}

// twoMachines is machine "near", the piweb the user uses, and machine
// "far", which requires sign-in (as beyond loopback) and has a session
// of its own (farID, in a folder of its own) and terminals.
type twoMachines struct {
	near, far *rig
	farURL    string // far as near reaches it, recording what it receives
	farID     string
	farLog    *testkit.Output // a log both servers may write while the test reads it
	got       *seen
	peers     peerTable
}

func newTwoMachines(t *testing.T) *twoMachines {
	key := access.NewFleetKey(testFleetKey)
	m := &twoMachines{farLog: &testkit.Output{}, got: &seen{}, peers: peerTable{}}
	m.far = newRig(t, Options{Fleet: machineFleet("far"), FleetKey: key, Token: "a-token-only-the-far-user-has",
		Log: slog.New(slog.NewTextHandler(m.farLog, nil))}, app.Config{Terminals: testTerminals(t)})
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.got.mu.Lock()
		m.got.header, m.got.query = r.Header.Clone(), r.URL.RawQuery
		m.got.mu.Unlock()
		m.far.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(rec.Close)
	m.farURL = rec.URL
	m.peers["far"] = fleet.Peer{Name: "far", Advertise: rec.URL, Online: true}
	m.near = newRig(t, Options{Fleet: machineFleet("near"), FleetKey: key, Peers: m.peers, Log: testkit.Log(t)})
	m.farID = farSession(t, m.far)
	return m
}

// farSession writes a session in a folder of its own on r's machine.
func farSession(t *testing.T, r *rig) string {
	t.Helper()
	id := pisession.NewSessionID()
	cwd := t.TempDir()
	header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q}`, id, cwd)
	dir := filepath.Dir(r.items0(t).Path)
	if _, err := sessionstore.NewFile(dir, []byte(header+"\n")); err != nil {
		t.Fatal(err)
	}
	r.sync()
	if _, found := r.cat.ByKey(id); !found {
		t.Fatal("the far session is not listed")
	}
	return id
}

// items0 is the rig's first session, read from its catalog (a rig that
// requires sign-in answers no plain request).
func (r *rig) items0(t *testing.T) catalog.Meta {
	metas, _, err := r.cat.List(context.Background(), ListQuery{Sort: "modified"})
	if err != nil || len(metas) == 0 {
		t.Fatalf("no session: %v", err)
	}
	return metas[0]
}

// TestForwardToOwner: a route of the allowlist naming another machine
// reaches that machine with the fleet key and without ?machine= or the
// user's cookie, Origin or credentials; the owner logs it. A route
// outside the allowlist is refused by both sides, and the owner refuses
// a request without the key or with a wrong one.
func TestForwardToOwner(t *testing.T) {
	m := newTwoMachines(t)
	files := "/api/sessions/" + m.farID + "/files"
	got := m.near.json("GET", files+"?machine=far", nil, 200, "Cookie", "piweb-30141=the-users-cookie",
		"Authorization", "Bearer the-users-token")
	if _, listed := got["entries"]; !listed {
		t.Errorf("files of the far session through near: %v", got)
	}
	h, q := m.got.last()
	proof := access.NewFleetKey(testFleetKey).Proof("far", time.Now())
	if _, err := access.NewFleetKey(testFleetKey).CheckProof("far", h.Get(fleetKeyHeader), time.Now()); err != nil ||
		h.Get(fleetMachineHeader) != "far" || h.Get(fleetFromHeader) != "near" {
		t.Errorf("forwarded headers: %v", h)
	}
	for k, vs := range h {
		if strings.Contains(strings.Join(vs, " "), testFleetKey) {
			t.Errorf("the fleet key itself left near, in %s", k)
		}
	}
	for _, k := range []string{"Cookie", "Authorization", "Origin", "Sec-Fetch-Site"} {
		if h.Get(k) != "" {
			t.Errorf("the user's %s reached the far machine: %q", k, h.Get(k))
		}
	}
	if strings.Contains(q, "machine") {
		t.Errorf("forwarded query %q still names the machine", q)
	}
	if log := m.farLog.String(); !strings.Contains(log, `msg="fleet request" from=near method=GET path=`+files) {
		t.Errorf("the far machine's log lacks the request it served:\n%s", log)
	}

	rename := "/api/sessions/" + m.farID + "/rename"
	for _, c := range []struct {
		what, method, path string
		body               any
		hdr                []string
		status             int
		code               string
	}{
		{"near: rename is not forwarded", "POST", rename + "?machine=far", map[string]any{"name": "x"}, nil, 403, "forbidden"},
		{"near: nor is a delete", "DELETE", "/api/sessions/" + m.farID + "?machine=far", map[string]any{}, nil, 403, "forbidden"},
		{"near: a cross-origin prompt", "POST", "/api/sessions/" + m.farID + "/commands?machine=far",
			map[string]any{"type": "abort"}, []string{"Origin", "http://evil.example"}, 403, "forbidden"},
		{"near: an unknown machine", "GET", files + "?machine=nowhere", nil, nil, 404, "not_found"},
		{"far: no key (the user's sign-in is required)", "GET", files, nil, nil, 401, "unauthorized"},
		{"far: a wrong key", "GET", files, nil, []string{fleetKeyHeader, "not-the-fleet-key", fleetMachineHeader, "far"}, 401, "unauthorized"},
		{"far: the key itself instead of its proof", "GET", files, nil, []string{fleetKeyHeader, testFleetKey, fleetMachineHeader, "far"}, 401, "unauthorized"},
		{"far: another machine's proof", "GET", files, nil,
			[]string{fleetKeyHeader, access.NewFleetKey(testFleetKey).Proof("near", time.Now()), fleetMachineHeader, "far"}, 401, "unauthorized"},
		{"far: the proof on a route outside the allowlist", "POST", rename, map[string]any{"name": "x"},
			[]string{fleetKeyHeader, proof, fleetMachineHeader, "far"}, 403, "forbidden"},
		{"far: the proof meant for another machine", "GET", files, nil,
			[]string{fleetKeyHeader, proof, fleetMachineHeader, "other"}, 400, "invalid"},
	} {
		r := m.near
		if strings.HasPrefix(c.what, "far") {
			r = m.far
		}
		if code := errCode(t, r.json(c.method, c.path, c.body, c.status, c.hdr...)); code != c.code {
			t.Errorf("%s: %s, want %s", c.what, code, c.code)
		}
	}
	if meta, _ := m.far.cat.ByKey(m.farID); meta.Name != "" {
		t.Errorf("the far session was renamed to %q", meta.Name)
	}
}

// TestForwardUnavailable: a machine offline, without an address, gone,
// or holding another key answers unavailable (502) with words, and a
// piweb without the key forwards nothing.
func TestForwardUnavailable(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	m := newTwoMachines(t)
	files := "/api/sessions/" + m.farID + "/files?machine=far"
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	other := newRig(t, Options{Fleet: machineFleet("far"), FleetKey: access.NewFleetKey("another-fleet-key-entirely")})
	for _, c := range []struct {
		what string
		peer fleet.Peer
		want string
	}{
		{"offline", fleet.Peer{Advertise: m.farURL, Online: false}, "is offline"},
		{"no address", fleet.Peer{Online: true}, "--fleet-advertise"},
		{"gone", fleet.Peer{Advertise: gone.URL, Online: true}, "does not answer"},
		{"another key", fleet.Peer{Advertise: other.ts.URL, Online: true}, "refused this piweb's fleet key"},
	} {
		m.peers["far"] = c.peer
		got := m.near.json("GET", files, nil, 502)
		msg, _ := got["error"].(map[string]any)["message"].(string)
		if errCode(t, got) != "unavailable" || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %v, want unavailable saying %q", c.what, got, c.want)
		}
	}
	keyless := newRig(t, Options{Fleet: machineFleet("near"), Peers: peerTable{"far": {Advertise: m.farURL, Online: true}}})
	if code := errCode(t, keyless.json("GET", files, nil, 502)); code != "unavailable" {
		t.Errorf("without a key: %s", code)
	}
}

// TestForwardTerminal: a terminal of another machine's session starts
// through the piweb the user uses, and its WebSocket, upgraded through
// the proxy, types and reads back.
func TestForwardTerminal(t *testing.T) {
	m := newTwoMachines(t)
	base := "/api/sessions/" + m.farID + "/terminals"
	info := m.near.json("POST", base+"?machine=far", map[string]any{"cols": 80, "rows": 24}, 200)
	tid, _ := info["id"].(string)
	origin := http.Header{"Origin": {m.near.ts.URL}}
	tc, _, err := dialTerminal(t, wsURL(m.near.ts.URL)+base+"/"+tid+"/socket?machine=far", origin)
	if err != nil {
		t.Fatal(err)
	}
	tc.send("echo far-$((40+2))\n")
	testkit.Eventually(t, tc.Has("far-42"), 10*time.Second, "the far shell's output through the proxy")
	_, resp, err := dialTerminal(t, wsURL(m.near.ts.URL)+base+"/"+tid+"/socket?machine=far",
		http.Header{"Origin": {"http://evil.example"}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("a cross-origin socket through the proxy: %v", err)
	}
	m.near.json("DELETE", base+"/"+tid+"?machine=far", map[string]any{}, 200)
}

// TestForwardStream: the page's one stream of another machine (GET
// /api/stream?machine=) and its subscriptions go to that machine: a
// session's topic there says hello through the proxy, as it comes.
func TestForwardStream(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	m := newTwoMachines(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	far := m.near.api().On("far")
	st, err := far.OpenStream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := far.Subscribe(ctx, apitype.StreamRequest{Stream: st.ID, Topic: "s/" + m.farID}); err != nil {
		t.Fatal(err)
	}
	f, err := st.Frame()
	var ev struct{ Type string }
	json.Unmarshal(f.Event, &ev)
	if err != nil || f.Topic != "s/"+m.farID || ev.Type != "hello" {
		t.Errorf("first frame of the far topic: %+v (%v)", f, err)
	}
	if ms := m.near.json("GET", "/api/fleet/machines", nil, 200); ms["drive"] != true {
		t.Errorf("machines: %v, want drive true (near holds the key)", ms)
	}
}

// TestForwardUserChecks: the piweb the user uses applies its own sign-in
// before forwarding: a request without it is refused there and nothing
// reaches the owner.
func TestForwardUserChecks(t *testing.T) {
	m := newTwoMachines(t)
	guarded := newRig(t, Options{Fleet: machineFleet("near"), FleetKey: access.NewFleetKey(testFleetKey), Peers: m.peers,
		Token: "the-near-users-token-0123456789"})
	files := "/api/sessions/" + m.farID + "/files?machine=far"
	if code := errCode(t, guarded.json("GET", files, nil, 401)); code != "unauthorized" {
		t.Errorf("no sign-in: %s", code)
	}
	if h, _ := m.got.last(); h != nil {
		t.Errorf("a refused request reached the far machine: %v", h)
	}
	guarded.json("GET", files, nil, 200, "Authorization", "Bearer the-near-users-token-0123456789")
	if h, _ := m.got.last(); h == nil || h.Get("Authorization") != "" {
		t.Errorf("the signed-in request forwarded with headers %v", h)
	}
}

// TestForwardNewSession: the new-session dialog's machine picker reads
// another machine's known folders and models through this piweb (its
// models.json, not this machine's), and a session started there must be
// in one of its known folders.
func TestForwardNewSession(t *testing.T) {
	m := newTwoMachines(t)
	models := `{"providers":{"far-llm":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"x",` +
		`"models":[{"id":"far-only-model"}]}}}`
	if err := os.WriteFile(filepath.Join(m.far.d.AgentDir, "models.json"), []byte(models), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	far := m.near.api().On("far")
	meta, _ := m.far.cat.ByKey(m.farID)
	farCwd := meta.Cwd
	projects, err := far.Projects(ctx)
	if err != nil || !slices.ContainsFunc(projects.Projects, func(p *apitype.Project) bool { return p.Cwd == farCwd }) {
		t.Errorf("far's projects through near: %v, %v; want %s among them", projects, err, farCwd)
	}
	for _, c := range []struct {
		what string
		api  *client.Client
		want bool
	}{{"far's models through near", far, true}, {"near's own models", m.near.api(), false}} {
		list, err := c.api.Models(ctx)
		if has := strings.Contains(jsonOf(list.Models), "far-only-model"); err != nil || has != c.want {
			t.Errorf("%s: far-only-model listed %v, want %v (%v)", c.what, has, c.want, err)
		}
	}
	_, err = far.Create(ctx, apitype.CreateRequest{Cwd: t.TempDir(), Message: "hi"})
	wantErr(t, "a new session on far outside its known folders", err, 403, "forbidden")
	_, err = far.Create(ctx, apitype.CreateRequest{Cwd: farCwd, Message: "hi"})
	if client.StatusOf(err) != 503 { // far's own check passed; it has no pi to start in this test
		t.Errorf("a new session on far in a known folder: %v, want far's 503 for a missing pi", err)
	}
}

// TestForwardShare: a share link to another machine's session is made on
// that machine (decision 0046): it is listed there, not here, and its page
// opens there to a client with no credential; near lists and revokes it
// there.
func TestForwardShare(t *testing.T) {
	m := newTwoMachines(t)
	ctx := t.Context()
	sh, err := m.near.api().On("far").Share(ctx, apitype.ShareRequest{Session: m.farID, Hours: 1})
	if err != nil || sh.Session != m.farID || !strings.HasPrefix(sh.Path, "/share/") {
		t.Fatalf("a link to far's session through near: %+v (%v)", sh, err)
	}
	farList, err := m.far.apiAs("Authorization", "Bearer a-token-only-the-far-user-has").Shares(ctx)
	if err != nil || len(farList.Shares) != 1 || farList.Shares[0].ID != sh.ID {
		t.Errorf("far's links: %+v (%v), want the one made", farList, err)
	}
	if nearList, err := m.near.api().Shares(ctx); err != nil || len(nearList.Shares) != 0 {
		t.Errorf("near's links: %+v (%v), want none", nearList, err)
	}
	if status, _, body := m.far.get(sh.Path, "Accept", "text/html"); status != 200 || !strings.Contains(body, "/share/live.js") {
		t.Errorf("the link's page on far: %d %.200s", status, body)
	}
	if log := m.farLog.String(); !strings.Contains(log, `msg="share link made"`) || !strings.Contains(log, "from=near") {
		t.Errorf("far's log does not say near asked for the link:\n%s", log)
	}
	_, err = m.near.api().Share(ctx, apitype.ShareRequest{Session: m.farID + "@far"})
	wantErr(t, "a ref instead of ?machine=", err, 400, "invalid")
	// Listed and revoked through near too.
	if list, err := m.near.api().On("far").Shares(ctx); err != nil || len(list.Shares) != 1 || list.Shares[0].ID != sh.ID {
		t.Errorf("far's links through near: %+v (%v)", list, err)
	}
	if err := m.near.api().On("far").RevokeShare(ctx, sh.ID); err != nil {
		t.Fatal(err)
	}
	if status, _, _ := m.far.get(sh.Path, "Accept", "text/html"); status != 404 {
		t.Errorf("the revoked link's page on far: %d, want 404", status)
	}
}
