package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// testSmallItems: issue 14.16's small items in the page, each as the
// issue found it. No two day separators stand together when the message
// between them is hidden (a tool result drawn in its call's card); the
// branch summary card has a disclosure marker; cost has one precision;
// the header's and the sidebar's counts say what they count, in the
// singular for one; an unnamed session's title is its first message
// alone, without "· unnamed".
func testSmallItems(t *testing.T, r *rig) {
	t.Run("day separators around a hidden message", func(t *testing.T) {
		day := func(d int) int64 { return time.Date(2026, 3, d, 12, 0, 0, 0, time.UTC).UnixMilli() }
		id := writeSession(t, r.dir, "/tmp/days-hidden", []map[string]any{
			{"role": "user", "content": "run it", "timestamp": day(2)},
			{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "true"}}},
				"api": "x", "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": day(2),
				"usage": map[string]any{"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2, "cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}},
			{"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "isError": false, "timestamp": day(3)},
			{"role": "user", "content": "days later", "timestamp": day(5)},
		})
		r.openSession(t, id, `document.querySelector('.conv')?.innerText.includes('days later')`)
		got := eval[string](t, r.browser, `[...document.querySelectorAll('.page > *')].map(e => e.classList.contains('day-sep') ? 'sep' : e.dataset.entry).join(' ')`)
		if got != "sep e0000001 e0000002 sep e0000004" {
			t.Errorf("conversation %q, want one separator per shown day", got)
		}
	})
	t.Run("branch summary marker", func(t *testing.T) {
		id := writeSession(t, r.dir, "/tmp/branch-summary", []map[string]any{
			{"role": "user", "content": "before the branch", "timestamp": 1764583200000},
			{"type": "branch_summary", "fromId": "e0000001", "summary": "What the other branch did."},
		})
		r.openSession(t, id, `document.querySelector('details.card.summary > summary')`)
		marker := `getComputedStyle(document.querySelector('details.card.summary > summary'), '::before')`
		if got := eval[string](t, r.browser, marker+`.content`); got != `"▸"` {
			t.Errorf("branch summary marker %s, want ▸", got)
		}
		r.click(t, `details.card.summary > summary`)
		r.waitJS(t, marker+`.transform !== 'none'`) // turned down when open
	})
	t.Run("no API key links to Settings", func(t *testing.T) {
		id := writeSession(t, r.dir, "/tmp/no-key", []map[string]any{
			{"role": "user", "content": "answer me", "timestamp": 1764583200000},
			{"role": "assistant", "content": []any{}, "api": "x", "provider": "openai", "model": "gpt-5.2", "usage": usage(),
				"stopReason": "error", "errorMessage": "No API key for provider: openai", "timestamp": 1764583200001},
		})
		r.waitIndexed(t, id)
		r.open(t, "/s/"+id)
		// (Settings itself opens at the provider in TestSettingsPage: here
		// pi's sign-ins would fail without pi.)
		r.waitJS(t, `document.querySelector('.stop.error .nokey-link')?.getAttribute('href') === '/settings?provider=openai'`)
		if shooting() {
			shootAll(t, r.browser, "no-key-link")
		}
	})
	t.Run("reduced motion", func(t *testing.T) {
		for _, class := range []string{"spin", "spinner", "run-dot"} { // the sidebar's, the chat's, a running session's
			got := eval[string](t, r.browser, fmt.Sprintf(`(() => {
				const d = document.createElement('span'); d.className = %q; document.body.append(d);
				const got = matchMedia('(prefers-reduced-motion: reduce)').matches + ' ' + getComputedStyle(d).animationName;
				d.remove(); return got; })()`, class))
			if got != "true none" {
				t.Errorf("reduced motion and a .%s's animation: %q, want \"true none\"", class, got)
			}
		}
	})
	t.Run("cost precision", func(t *testing.T) {
		got := eval[string](t, r.browser, `import('/js/util.js').then((u) => [0, 0.00001, 0.0067, 0.0123, 0.25, 1.5, 12.345].map(u.fmtCost).join(' '))`)
		if want := "$0 <$0.0001 $0.0067 $0.012 $0.250 $1.50 $12.35"; got != want {
			t.Errorf("costs %q, want %q", got, want)
		}
	})
	t.Run("counts", func(t *testing.T) {
		one := writeSession(t, r.dir, "/tmp/count-one", []map[string]any{{"role": "user", "content": "only one message", "timestamp": 1764583200000}})
		id := writeSession(t, r.dir, "/tmp/count-branch", []map[string]any{
			{"role": "user", "content": "first of the branches", "timestamp": 1764583200000},
			{"role": "user", "content": "old branch one", "timestamp": 1764583201000},
			{"role": "user", "content": "old branch two", "timestamp": 1764583202000},
		})
		testkit.AppendFile(t, r.sessionFile(t, id), `{"type":"message","id":"f0000009","parentId":"e0000001","timestamp":"2026-12-01T10:01:00.000Z","message":{"role":"user","content":"the new branch","timestamp":1764583260000}}`+"\n")
		r.waitIndexed(t, one)
		r.openSession(t, id, `document.querySelector('.conv')?.innerText.includes('the new branch')`)
		r.waitJS(t, `document.querySelector('.sess-facts .count')?.textContent.startsWith('2 messages on this branch · 4 in the file ·')`)
		row := func(id string) string {
			return eval[string](t, r.browser, fmt.Sprintf(`(() => { const s = document.querySelector('.sess[data-id=%q] .sess-meta'); return s ? s.innerText : ''; })()`, id))
		}
		r.waitJS(t, fmt.Sprintf(`document.querySelector('.sess[data-id=%q]') && document.querySelector('.sess[data-id=%q]')`, id, one))
		if got := row(id); !strings.Contains(got, "4 msgs") {
			t.Errorf("sidebar row %q, want 4 msgs (the file's)", got)
		}
		if got := row(one); !strings.Contains(got, "1 msg") || strings.Contains(got, "1 msgs") {
			t.Errorf("sidebar row %q, want 1 msg", got)
		}
		r.openReady(t, "/s/"+one, `document.querySelector('.sess-facts .count')?.textContent.startsWith('1 message ·')`)
		// Unnamed: the first message stands in as the title, alone.
		r.waitJS(t, `document.querySelector('.sess-name')?.innerText === 'only one message'`)
		if got := r.text(t, `.sess-head`); strings.Contains(got, "unnamed") {
			t.Errorf("header %q says unnamed beside the title", got)
		}
	})
}

// testCopiesInPage: a copy of a session file (a backup: same header id)
// is its own row in the sidebar, and each row opens the file it stands
// for, in the page and in its URL (issue 14.3: both rows opened one file).
func testCopiesInPage(t *testing.T, r *rig) {
	id := writeSession(t, r.dir, "/tmp/copied", []map[string]any{{"role": "user", "content": "the original text", "timestamp": 1764583200000}})
	orig := r.sessionFile(t, id)
	data := testkit.ReadFile(t, orig)
	data = append(data, `{"type":"message","id":"f0000009","parentId":"e0000001","timestamp":"2026-12-01T10:01:00.000Z","message":{"role":"user","content":"only in the backup","timestamp":1764583260000}}`+"\n"...)
	if err := os.WriteFile(filepath.Join(filepath.Dir(orig), "backup of it.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	r.waitIndexed(t, id)
	r.open(t, "/")
	rows := `[...document.querySelectorAll('.sess')].filter((a) => a.dataset.id.startsWith(` + fmt.Sprintf("%q", id) + `))`
	r.waitJS(t, rows+`.length === 2`)
	ids := eval[[]string](t, r.browser, rows+`.map((a) => a.dataset.id)`)
	if ids[0] == ids[1] {
		t.Fatalf("both rows have id %s", ids[0])
	}
	for _, rid := range ids {
		// Which file the API says the row stands for; the page must show it.
		backup := eval[bool](t, r.browser, fmt.Sprintf(`fetch('/api/sessions/' + encodeURIComponent(%q)).then((r) => r.json()).then((j) => j.session.path.endsWith('backup of it.jsonl'))`, rid))
		r.click(t, fmt.Sprintf(`.sess[data-id=%q]`, rid))
		r.waitJS(t, fmt.Sprintf(`decodeURIComponent(location.pathname) === '/s/' + %q && document.querySelector('.conv')?.innerText.includes('the original text') && document.querySelector('.conv').innerText.includes('only in the backup') === %v`, rid, backup))
	}
	if eval[bool](t, r.browser, fmt.Sprintf(`Promise.all(%q.split(' ').map((id) => fetch('/api/sessions/' + encodeURIComponent(id)).then((r) => r.json()).then((j) => j.session.path))).then(([a, b]) => a === b)`, ids[0]+" "+ids[1])) {
		t.Error("both rows open the same file")
	}
}
