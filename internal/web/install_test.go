package web

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestInstallable: Chromium reads the web manifest without errors and
// finds the app installable, the service worker registers and controls
// the page, it caches no API answer, and with piweb gone the app opens to
// the "piweb is not running" page.
func TestInstallable(t *testing.T) {
	t.Parallel() // its own server and browser context
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := appServer(t, dir, false)
	b := newOwnBrowser(t, srv.URL) // not incognito, so that Chrome may install the app
	b.open(t, "/")
	if !eval[bool](t, b, `navigator.serviceWorker.ready.then((r) => !!r.active)`) {
		t.Fatal("the service worker did not activate")
	}
	b.open(t, "/") // a page loaded after activation is controlled (the worker claims clients too)
	b.waitJS(t, `navigator.serviceWorker.controller !== null && document.querySelector('.home') !== null`)

	var man page.GetAppManifestResult
	var inst page.GetInstallabilityErrorsResult
	b.run(t, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		var err error
		if man, err = cdp.Call(ctx, tg, page.GetAppManifest, page.GetAppManifestParams{}); err != nil {
			return chromedp.Void{}, err
		}
		inst, err = cdp.Call(ctx, tg, page.GetInstallabilityErrors, cdp.Empty{})
		return chromedp.Void{}, err
	})
	if len(man.Errors) > 0 || !strings.HasSuffix(man.URL, "/manifest.webmanifest") || !strings.Contains(man.Data, `"piweb"`) {
		t.Errorf("manifest %s: errors %+v", man.URL, man.Errors)
	}
	for _, e := range inst.InstallabilityErrors {
		t.Errorf("not installable: %s %+v", e.ErrorID, e.ErrorArguments)
	}
	keys := eval[string](t, b, `caches.open('piweb-shell-v1').then((c) => c.keys()).then((ks) => ks.map((r) => new URL(r.url).pathname).join(' '))`)
	if strings.Contains(" "+keys, " /api/") || !strings.Contains(keys, "/offline.html") || !strings.Contains(keys, "/style.css") ||
		strings.Contains(keys, "?v=") {
		t.Errorf("cached: %s", keys)
	}

	b.run(t, chromedp.Navigate("about:blank")) // closes the page's event stream, which Close would wait for
	srv.Close()                                // piweb stops
	b.open(t, "/")
	b.waitJS(t, `document.querySelector('.offline-page h1')?.innerText === 'piweb is not running'`)
}
