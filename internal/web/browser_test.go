package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"piweb/internal/app"
	"piweb/internal/catalog"
	"piweb/internal/catalog/catalogtest"
	"piweb/internal/demo"
	"piweb/internal/pgtest"
	"piweb/internal/server"
	"piweb/internal/testkit"
)

const chromiumPath = "/usr/bin/chromium"

// browser is one headless Chromium with a tab on the app under test; it
// records console errors and uncaught exceptions so that every test can
// require a clean console.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	// later is a page to load before the next action on the tab unless
	// that action opens a page itself, with a script that is true once it
	// shows (see rig.reset).
	later, laterReady string

	mu     sync.Mutex
	errors []string
}

// requireChromium skips without Chromium, or fails when CI=true; browser
// tests are long, so -short skips them too.
func requireChromium(tb testing.TB) {
	tb.Helper()
	testkit.Long(tb)
	if _, err := exec.LookPath(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("chromium missing at %s (apt-get install -y chromium)", chromiumPath)
		}
		tb.Skipf("chromium missing at %s", chromiumPath)
	}
}

// appServer serves the app with the real server (internal/server) over
// the real SQLite index of agentDir, watched as piweb serve watches it.
func appServer(tb testing.TB, agentDir string, dev bool) *httptest.Server {
	h := appHandler(tb, agentDir, dev)
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv
}

// demoApp is the app over a fresh copy of the demo's sessions, and a
// browser of its own on it.
func demoApp(t *testing.T) (*demo.Demo, *browser) {
	d, err := demo.Seed(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d, newBrowser(t, appServer(t, d.AgentDir, false).URL)
}

func appHandler(tb testing.TB, agentDir string, dev bool) http.Handler {
	web := Handler(dev, "static")
	cat := indexCatalog(tb, agentDir)
	return newServer(tb, server.Options{Addr: "127.0.0.1:0", Web: web}, app.Config{AgentDir: agentDir, Catalog: cat})
}

// newServer builds cfg's parts as serve does (internal/app) and a server
// over them; when the test ends the server closes, then the parts.
func newServer(tb testing.TB, opts server.Options, cfg app.Config) *server.Server {
	tb.Helper()
	parts := app.New(cfg)
	srv := server.New(opts, parts)
	tb.Cleanup(func() {
		srv.Close()
		parts.Close()
	})
	return srv
}

// chromium is the one Chromium the package's browser tests share, started
// by the first of them and stopped by TestMain: starting one costs seconds
// of a loaded machine, and there are dozens of browsers. Each browser is a
// tab in a browser context of its own (storage, cookies, cache and service
// workers apart) and a window of its own (so it draws), as a Chromium of
// its own would be.
var chromium struct {
	once sync.Once
	ctx  context.Context // the browser's first tab, the parent of every browser's
	stop func()
	err  error
}

// sharedChromium returns the context to open browsers from, starting
// Chromium on the first call.
func sharedChromium(tb testing.TB) context.Context {
	tb.Helper()
	chromium.once.Do(func() {
		chromium.ctx, chromium.stop, chromium.err = startChromium()
	})
	if chromium.err != nil {
		tb.Fatalf("start chromium: %v", chromium.err)
	}
	return chromium.ctx
}

// startChromium starts a headless Chromium with a profile of its own and
// returns the context of its first tab and how to stop it.
func startChromium() (context.Context, func(), error) {
	dir, err := os.MkdirTemp("", "piweb-chromium-")
	if err != nil {
		return nil, nil, err
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Tests run side by side: no tab is throttled for being in the
		// background.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		// The page honours prefers-reduced-motion: no endless pulse or
		// spinner keeps an idle tab drawing while tests run side by side.
		chromedp.Flag("force-prefers-reduced-motion", true),
		// Work the tests never look at, as Puppeteer and chromedp's defaults
		// turn it off: the omnibox popups' WebUI (a renderer drawing the
		// headless window's address bar), translation, media routing, crash
		// reports, phishing checks, the hang monitor.
		chromedp.Flag("disable-features", "WebUIOmniboxPopup,WebUIOmniboxAimPopup,Translate,OptimizationHints,MediaRouter,AcceptCHFrame"),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 800),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	stop := func() {
		cancelC()
		cancelA()
		os.RemoveAll(dir)
	}
	if err := chromedp.Do(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	return ctx, stop, nil
}

// TestMain stops the shared Chromium and PostgreSQL after the tests.
func TestMain(m *testing.M) {
	code := pgtest.Main(m) // the fleet's tests share a throwaway PostgreSQL
	if chromium.stop != nil {
		chromium.stop()
	}
	os.Exit(code)
}

// newBrowser opens a browser on base: a new tab in a new browser context
// of the shared Chromium, closed (and its context disposed of) when the
// test ends.
func newBrowser(tb testing.TB, base string) *browser {
	requireChromium(tb)
	ctx, cancel := chromedp.NewContext(sharedChromium(tb), chromedp.WithNewBrowserContext())
	return openBrowser(tb, ctx, cancel, base)
}

// newOwnBrowser is newBrowser in a Chromium of its own, whose tab is not
// incognito as a new browser context's are: Chrome installs no app from an
// incognito tab.
func newOwnBrowser(tb testing.TB, base string) *browser {
	requireChromium(tb)
	ctx, stop, err := startChromium()
	if err != nil {
		tb.Fatalf("start chromium: %v", err)
	}
	return openBrowser(tb, ctx, stop, base)
}

// openBrowser makes the browser of tab ctx, which cancel closes at the
// end of the test.
func openBrowser(tb testing.TB, ctx context.Context, cancel func(), base string) *browser {
	tb.Helper()
	tb.Cleanup(cancel)
	b := &browser{ctx: ctx, base: base}
	if t, ok := tb.(*testing.T); ok {
		b.t = t
	}
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatalf("open a tab: %v", err)
	}
	// chromedp enables the Network and CSS domains on every tab; no test
	// reads their events, which Chromium would build and send (every
	// request, every event-stream message, every style sheet) and the test
	// decode.
	if err := chromedp.Do(ctx, cdpCall(network.Disable, cdp.Empty{}), cdpCall(css.Disable, cdp.Empty{})); err != nil {
		tb.Fatalf("chromium: %v", err)
	}
	if err := chromedp.Do(ctx, addScript(keepToasts)); err != nil {
		tb.Fatalf("chromium: %v", err)
	}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleWarning, chromedp.ConsoleException:
				b.record(m.String() + " " + m.URL)
			}
		}
	}()
	return b
}

func (b *browser) record(s string) {
	b.mu.Lock()
	b.errors = append(b.errors, s)
	b.mu.Unlock()
}

// noConsoleErrors fails the test for any console error or exception so far.
func (b *browser) noConsoleErrors(tb testing.TB) {
	tb.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		tb.Errorf("browser console: %s", e)
	}
}

// run runs actions with a timeout, failing the test on error.
func (b *browser) run(tb testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	b.loadLater(tb)
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.noConsoleErrors(tb)
		tb.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) and decodes
// its value.
func eval[T any](tb testing.TB, b *browser, js string) T {
	tb.Helper()
	b.loadLater(tb)
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		b.noConsoleErrors(tb)
		tb.Fatalf("eval %s: %v", js, err)
	}
	return v
}

// waitJS polls until the expression is truthy.
func (b *browser) waitJS(tb testing.TB, js string) {
	tb.Helper()
	b.loadLater(tb)
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](js, chromedp.WithPollingInterval(10*time.Millisecond)))
		if err == nil {
			return
		}
		if ctx.Err() == nil && navigatedAway(err) {
			continue // the page navigated while polling: poll the new one
		}
		b.noConsoleErrors(tb)
		tb.Fatalf("wait for %s: %v (toasts shown: %s)", js, err, b.toastsShown())
	}
}

// toastsShown lists the texts of the toasts the page has shown, to tell
// in a failure what the user saw.
func (b *browser) toastsShown() string {
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(window.testToasts || []).map((t) => t.textContent)`))
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%q", v)
}

// waitHearing waits until the page's event stream delivers topic (its
// hello came): from then on a change made from outside reaches the page.
func (b *browser) waitHearing(tb testing.TB, topic string) {
	tb.Helper()
	eval[bool](tb, b, `import('/js/api.js').then((m) => (window.testAPI = m, true))`)
	b.waitJS(tb, fmt.Sprintf(`window.testAPI.hearing(%q)`, topic))
}

// navigatedAway reports whether a poll failed because the page it ran in
// was replaced (a reload, or a service worker's answer, mid-poll).
func navigatedAway(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Cannot find context with specified id") ||
		strings.Contains(msg, "Execution context was destroyed") ||
		strings.Contains(msg, "Inspected target navigated or closed")
}

func (b *browser) open(tb testing.TB, path string) {
	tb.Helper()
	b.later = "" // replaced by path
	b.run(tb, chromedp.Navigate(b.base+path))
}

// openReady opens path and waits until the script ready is true.
func (b *browser) openReady(tb testing.TB, path, ready string) {
	tb.Helper()
	b.open(tb, path)
	b.waitJS(tb, ready)
}

// openLater opens path, once ready (a script) is true, before the next
// action on the tab unless that action opens a page itself: most tests
// that start from the start page open another first, and each load of the
// app costs Chromium about half a second of CPU.
func (b *browser) openLater(path, ready string) { b.later, b.laterReady = path, ready }

// loadLater loads the page openLater left, if any.
func (b *browser) loadLater(tb testing.TB) {
	tb.Helper()
	if b.later == "" {
		return
	}
	path := b.later
	b.later = ""
	b.openReady(tb, path, b.laterReady)
}

// shooting reports whether the tests take screenshots (PIWEB_SHOTS set).
func shooting() bool { return os.Getenv("PIWEB_SHOTS") != "" }

// needShots skips a test that takes screenshots unless PIWEB_SHOTS is set.
func needShots(t *testing.T) {
	t.Helper()
	if !shooting() {
		t.Skip("set PIWEB_SHOTS=1 to take screenshots")
	}
}

// screenshot saves a PNG under $PIWEB_SHOTS_DIR (default /tmp/piweb-shots)
// for looking at the design.
func (b *browser) screenshot(tb testing.TB, name string) {
	tb.Helper()
	b.loadLater(tb)
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatalf("screenshot: %v", err)
	}
	dir := os.Getenv("PIWEB_SHOTS_DIR")
	if dir == "" {
		dir = "/tmp/piweb-shots"
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// addScript runs js in every document the tab loads from now on, before
// the page's own scripts.
func addScript(js string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: js})
		return chromedp.Void{}, err
	}
}

// keepToasts records every toast a document shows in window.testToasts
// (the elements, which keep their text once removed): a toast lasts a few
// seconds, and a test checking the page only after a stall of the machine
// would miss one that was shown.
const keepToasts = `window.testToasts = [];
new MutationObserver((ms) => {
  for (const m of ms) for (const n of m.addedNodes) {
    if (n.nodeType !== 1) continue;
    for (const e of [n, ...n.querySelectorAll('.toast')]) if (e.classList.contains('toast')) window.testToasts.push(e);
  }
}).observe(document, { childList: true, subtree: true });`

// toastShown is a JavaScript test of whether the document has shown a
// toast holding every one of parts (see keepToasts).
func toastShown(parts ...string) string {
	b, _ := json.Marshal(parts)
	return fmt.Sprintf(`window.testToasts.some((t) => %s.every((p) => t.textContent.includes(p)))`, b)
}

// setPermission sets a permission in the tab's own browser context (one
// set without a context goes to Chromium's default one, which holds no
// test's tab).
func setPermission(p cdpbrowser.SetPermissionParams) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		p.BrowserContextID = chromedp.FromContext(ctx).BrowserContextID
		_, err := cdp.Call(ctx, t, cdpbrowser.SetPermission, p)
		return chromedp.Void{}, err
	}
}

// emulateDark makes prefers-color-scheme report dark.
func emulateDark() chromedp.Action[chromedp.Void] { return emulateScheme("dark") }

// emulateScheme makes prefers-color-scheme report scheme, and the page
// take it at once: theme.js follows the system on the next frame, and a
// check of colours right after would race it.
func emulateScheme(scheme string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
		if err != nil {
			return chromedp.Void{}, err
		}
		_, err = chromedp.Evaluate[bool](`(document.dispatchEvent(new Event('piweb-theme')), true)`)(ctx, t)
		return chromedp.Void{}, err
	}
}

// indexCatalog opens the SQLite index of agentDir in a temporary dir,
// indexes everything (text too, for search) and keeps it current.
func indexCatalog(tb testing.TB, agentDir string) *catalog.Catalog {
	return catalogtest.Open(tb, catalog.Options{AgentDir: agentDir,
		Getenv: func(string) string { return "" }, Log: testkit.Log(tb), Rescan: 200 * time.Millisecond, SyncFor: time.Minute})
}
