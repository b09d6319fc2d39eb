package web

import (
	"testing"
)

// TestKeepInOrder: Select puts a checkbox on each session; a shift-click
// selects a range; the bulk bar pins them (first in their project, a pin
// mark), archives one (gone from the sidebar and home, listed under
// Archived, restored from there; its page says so, its Actions unpin
// it), sorts by name, and deletes one to the
// restorable trash after a confirmation. With PIWEB_SHOTS set it also
// photographs the sidebar (pins, selection, Archived) in every variant.
func TestKeepInOrder(t *testing.T) {
	t.Parallel() // its own server and browser context
	_, b := demoApp(t)
	b.openReady(t, "/", `document.querySelectorAll('.sidebar .sess').length >= 4 && document.querySelector('.recent li')`)
	shots := shooting()

	click(t, b, `.select-toggle`)
	b.waitJS(t, `document.querySelectorAll('.sel-box:not(.sel-group)').length >= 4 && document.querySelector('.bulk-bar')`)
	const boxes = `[...document.querySelectorAll('.sel-box:not(.sel-group)')]`
	eval[bool](t, b, boxes+`[0].click() || true`)
	eval[bool](t, b, boxes+`[2].dispatchEvent(new MouseEvent('click', {bubbles: true, shiftKey: true})) || true`)
	b.waitJS(t, boxes+`.filter((x) => x.checked).length === 3 && document.querySelector('.bulk-count').textContent === '3 selected'`)
	if shots {
		shootSidebar(t, b, "order-select")
	}
	picked := eval[[]string](t, b, boxes+`.filter((x) => x.checked).map((x) => x.nextElementSibling.dataset.id)`)
	// The zip the Export menu downloads, as api.js fetches it.
	b.waitJS(t, `document.querySelector('.bulk-export').value === '' && import('/js/api.js').then((m) => m.exportMany(`+mustJSON(picked)+`, 'md')).then((r) => r.blob.type === 'application/zip' && r.name === 'pi-sessions-3.zip')`)
	click(t, b, `.bulk-pin`)
	b.waitJS(t, `!document.querySelector('.bulk-bar') && document.querySelectorAll('.sidebar .pin-mark').length === 3`)
	b.waitJS(t, `fetch('/api/order').then((r) => r.json()).then((o) => Object.keys(o.pinned).length === 3)`)

	// Archive the first pinned one: it leaves the sidebar and home.
	gone := picked[0]
	click(t, b, `.select-toggle`)
	click(t, b, `.sel-row .sess[data-id="`+gone+`"]`)
	click(t, b, `.bulk-archive`)
	b.waitJS(t, `!document.querySelector('.sidebar .sess[data-id="`+gone+`"]') && !document.querySelector('.recent a[href$="`+gone+`"]') && document.querySelector('.archived-toggle .count').textContent === '1' && document.querySelector('.home .fact').textContent.includes('(1 archived)')`)
	click(t, b, `.archived-toggle`)
	b.waitJS(t, `document.querySelectorAll('.sidebar .sess').length === 1 && document.querySelector('.sidebar .sess[data-id="`+gone+`"]')`)
	if shots {
		shootSidebar(t, b, "order-archived")
	}
	// Its page says it is archived; its Actions unpin it.
	click(t, b, `.sidebar .sess[data-id="`+gone+`"]`)
	click(t, b, `.sess-head .menu > button`)
	click(t, b, `.menu-pop .act-pin`)
	b.waitJS(t, `document.querySelector('.archived-fact') && fetch('/api/order').then((r) => r.json()).then((o) => Object.keys(o.pinned).length === 2)`)
	if shots {
		shootAll(t, b, "order-session")
	}
	click(t, b, `.select-toggle`)
	click(t, b, `.bulk-all`)
	click(t, b, `.bulk-archive`) // Restore in the Archived view
	b.waitJS(t, `document.body.innerText.includes('Nothing archived.')`)
	click(t, b, `.archived-toggle`)
	b.waitJS(t, `document.querySelector('.sidebar .sess[data-id="`+gone+`"]')`)

	// By name: after the pinned ones, A to Z.
	eval[bool](t, b, `(() => { const s = document.querySelector('.side-sort'); s.value = 'name'; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`)
	b.waitJS(t, `localStorage.getItem('piweb.sort') === 'name'`)
	b.waitJS(t, `[...document.querySelectorAll('.sidebar .group')].every((g) => {
		const t = [...g.querySelectorAll(':scope > .sess-list > li > .sess:not(:has(.pin-mark)) .sess-title')].map((e) => e.textContent.trim());
		return t.every((x, i) => i === 0 || t[i-1].localeCompare(x, undefined, {numeric: true, sensitivity: 'base'}) <= 0);
	})`)
	if shots {
		shootSidebar(t, b, "order-pinned")
	}

	// Delete one to the trash.
	click(t, b, `.select-toggle`)
	click(t, b, `.sel-row .sess[data-id="`+picked[1]+`"]`)
	click(t, b, `.bulk-delete`)
	click(t, b, `.dialog.confirm .primary`)
	b.waitJS(t, `!document.querySelector('.sidebar .sess[data-id="`+picked[1]+`"]')`)
	b.waitJS(t, `fetch('/api/trash').then((r) => r.json()).then((d) => d.items.length === 1)`)
	b.noConsoleErrors(t)
}

// shootSidebar is shootAll with the sidebar open on a phone.
func shootSidebar(t *testing.T, b *browser, name string) {
	eval[bool](t, b, `(document.querySelector('.sidebar').classList.contains('open') || document.querySelector('button[aria-label=Sessions]').click(), true)`)
	shootAll(t, b, name)
	eval[bool](t, b, `(document.querySelector('.sidebar').classList.contains('open') && document.querySelector('.scrim').click(), true)`)
}
