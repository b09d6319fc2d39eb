package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"piweb/internal/testkit"
)

// testPhoneTree: on a phone the tree panel covers the conversation, so
// choosing a node closes it and shows that branch.
func testPhoneTree(t *testing.T, r *rig) {
	r.run(t, chromedp.EmulateViewport(375, 740))
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	r.click(t, `.sess-actions button[title^=Tree]`)
	r.click(t, `.tnode[data-id=efd166e1] button`)
	r.waitJS(t, `!document.querySelector('.tree-panel') && document.querySelector('#e-efd166e1')`)
	if !strings.Contains(eval[string](t, r.browser, `location.search`), "leaf=") {
		t.Error("the chosen branch is not shown")
	}
}

// testDaySeparators: message headers show only the time, so the date is
// shown at the start and wherever it changes.
func testDaySeparators(t *testing.T, r *rig) {
	day := func(d, h int) int64 { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC).UnixMilli() }
	id := writeSession(t, r.dir, "/tmp/days", []map[string]any{
		{"role": "user", "content": "monday morning", "timestamp": day(2, 11)},
		{"role": "user", "content": "monday noon", "timestamp": day(2, 13)},
		{"role": "user", "content": "tuesday", "timestamp": day(3, 12)},
	})
	r.openSession(t, id, `document.querySelectorAll('.row').length === 3`)
	got := eval[[]string](t, r.browser, `[...document.querySelectorAll('.page > *')].map(e => e.classList.contains('day-sep') ? 'sep ' + e.textContent : e.dataset.entry)`)
	want := []string{"sep", "e0000001", "e0000002", "sep", "e0000003"}
	if len(got) != len(want) {
		t.Fatalf("conversation %q, want %q", got, want)
	}
	for i, g := range got {
		if !strings.HasPrefix(g, want[i]) {
			t.Errorf("conversation %q, want %q", got, want)
		}
	}
	if !strings.Contains(got[3], "3") || !strings.Contains(got[3], "2026") {
		t.Errorf("second separator %q is not March 3, 2026", got[3])
	}
}

// testFilesMissingDir: a session whose folder is gone says so once, and
// does not follow a folder that cannot be listed, and the browser logs no
// error for it (the server answers missing, not 404).
func testFilesMissingDir(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/nonexistent/piweb-gone", []map[string]any{{"role": "user", "content": "gone", "timestamp": 1}})
	r.openSession(t, id, `document.querySelector('.row')`)
	r.click(t, `.sess-actions button[title^=Files]`)
	r.waitJS(t, `document.querySelector('.files-missing')`)
	if got := r.text(t, `.files-missing`); !strings.Contains(got, "does not exist") {
		t.Errorf("missing folder told as %q", got)
	}
	if n := r.count(t, `.files-split`); n != 0 {
		t.Error("file viewer shown for a missing folder")
	}
	if n := eval[int](t, r.browser, `performance.getEntriesByType('resource').filter(e => e.name.includes('/files/events')).length`); n != 0 {
		t.Errorf("%d event streams opened on a missing folder", n)
	}
}

// press types a key as a keyboard does: the character comes with the
// keydown, so a page that prevents the keydown types nothing.
func (b *browser) press(t *testing.T, k rune) {
	t.Helper()
	var down, up input.DispatchKeyEventParams
	text := ""
	for _, e := range kb.Encode(k) {
		switch e.Type {
		case kb.KeyDown:
			down = *e
		case kb.KeyUp:
			up = *e
		case kb.KeyChar:
			text = e.Text
		}
	}
	down.Text, down.UnmodifiedText = text, text
	b.run(t, cdpCall(input.DispatchKeyEvent, down), cdpCall(input.DispatchKeyEvent, up))
}

// testUsageZoneAndOrder: the page counts days in the browser's zone, lists
// days newest first and models costliest first, sorts by a clicked
// column, and offers all time.
func testUsageZoneAndOrder(t *testing.T, r *rig) {
	r.run(t, cdpCall(emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"}))
	defer r.run(t, cdpCall(emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{}))
	r.openReady(t, "/usage", `document.querySelectorAll('.grid tbody tr').length > 0`)
	if got := r.text(t, `.sess-facts`); !strings.Contains(got, "Asia/Tokyo") {
		t.Errorf("usage facts %q do not name the zone", got)
	}
	keys := func() []string {
		return eval[[]string](t, r.browser, `[...document.querySelectorAll('.grid tbody td.key')].map(td => td.title)`)
	}
	want := usageKeys(t, r, "by=day&days=30&tz=Asia/Tokyo")
	slices.Reverse(want)
	if got := keys(); !slices.Equal(got, want) {
		t.Errorf("days %q, want newest first %q", got, want)
	}
	r.click(t, `.usage-group button:nth-child(2)`)
	r.waitJS(t, `document.querySelector('.grid th.key-col')?.textContent.startsWith('model')`)
	costs := func() []string {
		return eval[[]string](t, r.browser, `[...document.querySelectorAll('.grid tbody td.col-cost')].map(td => td.title)`)
	}
	if c := costs(); !sortedDesc(c) {
		t.Errorf("models not costliest first: %q", c)
	}
	r.click(t, `.grid th.col-cost button`)
	r.waitJS(t, `document.querySelector('.grid th.col-cost')?.getAttribute('aria-sort') === 'ascending'`)
	if c := costs(); !sortedAsc(c) {
		t.Errorf("cost column click did not sort ascending: %q", c)
	}
	r.click(t, `.usage-period button:last-child`)
	all := usageKeys(t, r, "by=model&tz=Asia/Tokyo")
	r.waitJS(t, fmt.Sprintf(`document.querySelectorAll('.grid tbody tr').length === %d`, len(all)))
}

func usageKeys(t *testing.T, r *rig, query string) []string {
	t.Helper()
	res, err := http.Get(r.base + "/api/usage?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct{ Rows []struct{ Key string } }
	json.NewDecoder(res.Body).Decode(&out)
	var keys []string
	for _, row := range out.Rows {
		keys = append(keys, row.Key)
	}
	return keys
}

func costOf(s string) float64 {
	var f float64
	fmt.Sscanf(strings.TrimPrefix(s, "$"), "%g", &f)
	return f
}

func sortedDesc(c []string) bool {
	return slices.IsSortedFunc(c, func(a, b string) int { return testkit.CompareFloat(costOf(b), costOf(a)) })
}

func sortedAsc(c []string) bool {
	return slices.IsSortedFunc(c, func(a, b string) int { return testkit.CompareFloat(costOf(a), costOf(b)) })
}

// testClosedViewOpensNoStream: a view closed before its metadata arrived
// (the reader moved on at once) once opened its event stream anyway, and
// nothing closed it; a dozen quick switches used up the browser's six
// connections to the server and the app hung on "Loading…".
func testClosedViewOpensNoStream(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.conv .row')`)
	streams := eval[int](t, r.browser, fmt.Sprintf(`(async (id) => {
		const { View } = await import('/js/view.js');
		const opened = [];
		const ES = window.EventSource;
		window.EventSource = function (url) { const es = new ES(url); opened.push(es); return es; };
		try {
			const v = new View(id, '', '');
			const done = v.open();
			while (!v.loaded.value) await new Promise((r) => setTimeout(r, 1));
			v.close();
			await done;
			await new Promise((r) => setTimeout(r, 100));
		} finally {
			window.EventSource = ES;
		}
		return opened.filter((es) => es.readyState !== 2).length;
	})(%q)`, bigID))
	if streams != 0 {
		t.Errorf("a closed view left %d event streams open", streams)
	}
}
