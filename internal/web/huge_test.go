package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/testkit"
)

// The reading rig's cases (app_test.go) of huge sessions: windowed
// pages of a long one, and the badge of a large file.

func testWindowedHugeSession(t *testing.T, r *rig) {
	writeBig(t, r.dir, 10000)
	r.waitIndexed(t, bigID)
	r.openReady(t, "/s/"+bigID, `document.querySelectorAll('.row').length > 0`)
	// Newest first: the last message is on screen.
	r.waitJS(t, `(() => { const c = document.querySelector('.conv'); return c.scrollHeight - c.scrollTop - c.clientHeight < 50; })()`)
	if got := r.text(t, `.row:last-of-type`); got == "" {
		t.Fatal("no last row")
	}
	if !strings.Contains(eval[string](t, r.browser, `[...document.querySelectorAll('.row')].pop().innerText`), "f9996") {
		t.Error("last message not shown")
	}
	// Scrolling up loads earlier pages (30 of them) while the DOM stays
	// bounded. It scrolls until they are loaded, not for a fixed time: a
	// page's fetch can take seconds on a loaded machine.
	maxRows := 0
	testkit.Eventually(t, func() error {
		eval[bool](t, r.browser, `(document.querySelector('.conv').scrollTop = 0, true)`)
		maxRows = max(maxRows, r.count(t, `.row`))
		start := eval[int](t, r.browser, `+(document.querySelector('.load-earlier button')||{textContent:'(0 '}).textContent.match(/\((\d+)/)[1]`)
		if start > 10000-60*3*10 {
			return fmt.Errorf("earlier pages not loaded: %d messages still before", start)
		}
		return nil
	}, time.Minute, "earlier pages as the view scrolls up")
	if maxRows > 600 {
		t.Errorf("%d rows in the DOM: not windowed", maxRows)
	}
}

func testHugeBadgeAndLabels(t *testing.T, r *rig) {
	// A label set through the API shows in the tree at once (live). First:
	// the huge file below keeps the index's writer busy for a while, and
	// the tree hears of the label through it.
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, `document.querySelector('.tnode[data-id=f202c394]')`)
	code := eval[int](t, r.browser, fmt.Sprintf(`fetch('/api/sessions/%s/label', {method: 'POST', headers: {'Content-Type': 'application/json'},
		body: JSON.stringify({entryId: 'f202c394', label: 'checkpoint'})}).then(r => r.status)`, basicID))
	if code != 200 {
		t.Fatalf("label: %d", code)
	}
	r.waitJS(t, `(document.querySelector('.tnode[data-id=f202c394] .tlabel')||{}).textContent === 'checkpoint'`)

	var msgs []map[string]any
	for range 2100 {
		msgs = append(msgs, map[string]any{"role": "user", "content": strings.Repeat("x", 10<<10), "timestamp": 1})
	}
	hugeID := writeSession(t, r.dir, "/tmp/huge", msgs)
	r.waitIndexed(t, hugeID)
	r.openReady(t, "/", fmt.Sprintf(`document.querySelector('.sess[data-id=%q] .size.huge')`, hugeID))
}
