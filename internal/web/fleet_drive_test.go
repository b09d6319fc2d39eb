package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/access"
	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/fakellm"
	"piweb/internal/fakellm/fakellmtest"
	"piweb/internal/pgtest"
	"piweb/internal/pitest"
	"piweb/internal/terminal"
)

// drivenMachine is a machine of a test fleet whose piweb runs real pi
// (talking to the fake LLM) and terminals, reached by the others at its
// advertised URL with the fleet key.
type drivenMachine struct {
	*fleetMachine
	llm  *fakellm.Server
	http *httptest.Server
	cwd  string // its sessions' folder
}

// newDrivenMachine serves machine name with one session (a question of
// the past, in a real folder) and pushes it, its URL advertised.
func newDrivenMachine(t *testing.T, url, name string, key access.FleetKey, question string) *drivenMachine {
	t.Helper()
	var h http.Handler = http.NotFoundHandler()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	cwd := t.TempDir()
	fm := newFleetMachineWith(t, url, name, fleetOpts{cwd: cwd, advertise: "http://" + hs.Listener.Addr().String()}, question)
	llm, _ := fakellmtest.Serve(t, fm.dir, fakellm.Options{})
	pi, err := agent.Find(context.Background(), pitest.PiBinVersion(t, rigPi))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.NewService(agent.Config{Base: agent.Options{Pi: pi, AgentDir: fm.dir},
		BridgeDir: filepath.Join(t.TempDir(), "bridge")})
	if err != nil {
		t.Fatal(err)
	}
	terms := terminal.New(terminal.Options{Shell: "/bin/sh", Env: []string{"PATH=/usr/bin:/bin", "PS1=$ ", "HOME=" + cwd},
		KillAfter: 500 * time.Millisecond})
	h = fleetServer(t, url, name, fm, key, app.Config{Agent: ag, Terminals: terms})
	hs.Start()
	t.Cleanup(hs.Close)
	return &drivenMachine{fleetMachine: fm, llm: llm, http: hs, cwd: cwd}
}

// TestFleetDriveInBrowser: in machine alpha's page, a session of machine
// beta (online, reached through alpha with the fleet key) is live and
// writable: a prompt sent from the composer runs on beta, its answer
// streams in as beta's pi writes it (a delta shown while the rest is
// held back), then stays as beta's push brings it; its Terminal runs a
// shell on beta; /new there starts a session on beta. When beta's piweb vanishes (its pusher still beating),
// the page says beta does not answer and falls back to the read-only
// view from the fleet database, what was read still shown.
func TestFleetDriveInBrowser(t *testing.T) {
	requireChromium(t)
	t.Parallel()
	c := pgtest.Shared(t)
	url := c.URL(c.NewDB(t), pgtest.Superuser, "")
	key := access.NewFleetKey("the browser test's fleet key")
	beta := newDrivenMachine(t, url, "beta", key, "beta asks about beavers")
	alpha := newFleetMachine(t, url, "alpha", "alpha asks about otters")
	ts := httptest.NewServer(fleetServer(t, url, "alpha", alpha, key, app.Config{}))
	t.Cleanup(ts.Close)
	b := newBrowser(t, ts.URL)
	t.Cleanup(func() { b.noConsoleErrors(t) })
	b.open(t, "/")
	b.waitJS(t, `(() => { const m = document.querySelector('.machine[data-machine="beta"]');
		return m && m.dataset.online === '1' && m.querySelector('.sess') !== null; })()`)
	b.run(t, chromedp.Click(`.machine[data-machine="beta"] .sess`))
	b.waitJS(t, `location.search === '?machine=beta' && document.querySelector('.composer textarea') !== null
		&& document.querySelector('.remote-banner') === null
		&& document.querySelector('.conv').textContent.includes('answer to beta asks about beavers')`)
	b.waitHearing(t, "s/0199aaaa-bbbb-7ccc-8ddd-000000000001@beta")
	// Its model picker lists beta's models (its models.json); alpha has none.
	b.waitJS(t, `document.querySelector('.model-select option[value="fake/fake-model"]') !== null`)

	// A prompt: the answer's first part is shown while beta's pi still
	// waits for the rest (so it came over beta's stream, not the database).
	hold := make(chan struct{})
	beta.llm.Enqueue(fakellm.Text("Beavers build their dams of sticks and mud.").WithChunks(4).WithHold(hold, 1))
	chat := &chatRig{browser: b, llm: beta.llm}
	chat.send(t, "how do beavers build?")
	b.waitJS(t, `(() => { const l = document.querySelector('.live-msg'); return l && l.textContent.includes('Beavers')
		&& !l.textContent.includes('sticks and mud'); })()`)
	shoot(t, b, "fleet-drive-streaming")
	close(hold)
	chat.waitText(t, "Beavers build their dams of sticks and mud.")
	chat.waitText(t, "how do beavers build?")
	chat.waitIdle(t)
	shareOnBeta(t, b, beta)
	newSessionOnBeta(t, b, beta)

	// Its terminal is a shell on beta.
	ws := &workspaceRig{browser: b}
	(&rig{browser: b}).click(t, `.sess-actions button[title^="Terminal"]`)
	(&rig{browser: b}).click(t, `.term-empty .btn.primary`)
	ws.typeTerm(t, "echo typed-on-$((1+1))-machines && pwd\r")
	ws.waitRows(t, "typed-on-2-machines")
	real, _ := filepath.EvalSymlinks(beta.cwd)
	ws.waitRows(t, real)
	shoot(t, b, "fleet-drive-terminal")

	// beta's piweb vanishes; its pusher goes on beating.
	b.noConsoleErrors(t)
	beta.http.CloseClientConnections()
	beta.http.Close()
	b.waitJS(t, `(() => { const r = document.querySelector('.remote-banner');
		return r && r.textContent.includes('not answering') && document.querySelector('.composer textarea') === null
			&& document.querySelector('.conv').textContent.includes('Beavers build their dams of sticks and mud.'); })()`)
	b.expectConsole("/api/stream?machine=beta") // Chromium logs the stream cut and the 502 that followed
	if n := eval[int](t, b, `document.querySelectorAll('.side-panel').length`); n != 0 {
		t.Errorf("the read-only view shows %d panels that need beta", n)
	}
	shoot(t, b, "fleet-drive-vanished")
}

// newSessionOnBeta: /new in beta's session opens the new-session dialog
// on beta (the machine picker offers alpha first, then beta), with beta's
// folders and models; the session starts on beta and opens from the
// fleet database once pushed. The page then opens the session it came
// from again.
func newSessionOnBeta(t *testing.T, b *browser, beta *drivenMachine) {
	t.Helper()
	chat := &chatRig{browser: b, llm: beta.llm}
	beta.llm.Enqueue(fakellm.Text("A new session on beta."))
	chat.send(t, "/new")
	b.waitJS(t, fmt.Sprintf(`(() => { const d = document.querySelector('.new-session-dialog'); if (!d) return false;
		const ms = [...d.querySelectorAll('[name=machine] option')].map((o) => o.value).join();
		return ms === ',beta' && d.querySelector('[name=machine]').value === 'beta' && d.querySelector('[name=cwd]').value === %q
			&& d.querySelector('[name=model] option[value="fake/fake-model"]') !== null; })()`, beta.cwd))
	shoot(t, b, "fleet-new-session")
	eval[bool](t, b, `(() => { const e = document.querySelector('.new-session-dialog [name=message]'); e.value = 'start on beta';
		e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	(&rig{browser: b}).click(t, `.new-session-dialog [type=submit]`)
	b.waitJS(t, `location.search === '?machine=beta' && !location.pathname.endsWith('-000000000001')`)
	b.waitJS(t, `document.querySelector('.conv')?.textContent.includes('A new session on beta.')`)
	(&rig{browser: b}).click(t, `.machine[data-machine="beta"] a.sess[href^="/s/0199aaaa-bbbb-7ccc-8ddd-000000000001"]`)
	b.waitJS(t, `location.pathname.endsWith('-000000000001') && document.querySelector('.conv')?.textContent.includes('Beavers build')`)
}

// shareOnBeta: Share… in beta's session makes the link on beta (decision
// 0046): the dialog shows it on beta's advertised address, where a reader
// with no credential opens the page; alpha's Settings lists it as beta's
// and revokes it.
func shareOnBeta(t *testing.T, b *browser, beta *drivenMachine) {
	t.Helper()
	click(t, b, `.sess-head .menu > button`)
	click(t, b, `.menu-pop .act-share`)
	click(t, b, `.share-create`)
	b.waitJS(t, fmt.Sprintf(`(document.querySelector('.share-link')?.value || '').startsWith(%q) && document.querySelector('.share-remote')`,
		beta.http.URL+"/share/"))
	shoot(t, b, "fleet-share")
	link := eval[string](t, b, `document.querySelector('.share-link').value`)
	resp, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "beavers") {
		t.Errorf("the link on beta: %d %.200s", resp.StatusCode, body)
	}
	click(t, b, `.share-dialog .dialog-actions .btn`)
	b.waitJS(t, `!document.querySelector('.share-dialog')`)
	// Settings lists it as beta's and revokes it there; then beta's
	// session again.
	b.openReady(t, "/settings", `document.querySelector('.share-row[data-machine="beta"]')?.textContent.includes('on beta')`)
	b.expectConsole("/api/config/signin/") // Settings asks alpha's pi, which this test has not, for its sign-ins
	eval[bool](t, b, `(() => { const e = document.querySelector('.set-search'); e.value = 'share';
		e.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
	b.waitJS(t, `document.querySelector('.share-row[data-machine="beta"]') && !document.querySelector('.set-names')`)
	shoot(t, b, "fleet-share-settings")
	click(t, b, `.share-row[data-machine="beta"] .share-revoke`)
	click(t, b, `.dialog.confirm .primary`)
	b.waitJS(t, `document.querySelector('.share-row') === null`)
	if resp, err := http.Get(link); err != nil || resp.StatusCode != 404 {
		t.Errorf("the revoked link on beta: %v (%v), want 404", resp, err)
	} else {
		resp.Body.Close()
	}
	b.expectConsole("/api/config/signin/")
	b.openReady(t, "/s/0199aaaa-bbbb-7ccc-8ddd-000000000001?machine=beta", `document.querySelector('.composer textarea') !== null && document.querySelector('.conv')?.textContent.includes('Beavers build')`)
}
