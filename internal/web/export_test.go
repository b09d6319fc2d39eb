package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// exportSession writes a session with what an export must show: Markdown,
// thinking, a bash call that failed, an edit, model and cost, and markup
// that must not run.
func exportSession(t *testing.T, agentDir string) string {
	return writeSession(t, agentDir, "/tmp/export", []map[string]any{
		{"role": "user", "content": "Please **fix** it " + evil(40), "timestamp": 1764583200000},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "I should look first."},
			map[string]any{"type": "text", "text": "Done:\n\n- a `list`\n- with **bold**\n\n" + evil(41)},
			map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "make test"}},
			map[string]any{"type": "toolCall", "id": "c2", "name": "edit", "arguments": map[string]any{"path": "a.go", "oldText": "old", "newText": "new"}},
		}, "api": "x", "provider": "p", "model": "claude-export", "usage": usage(), "stopReason": "toolUse", "timestamp": 1764583201000},
		{"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": "FAIL\n\nCommand exited with code 1"}}, "isError": true, "timestamp": 1764583202000},
		{"role": "toolResult", "toolCallId": "c2", "toolName": "edit", "content": []any{map[string]any{"type": "text", "text": "ok"}}, "isError": false, "timestamp": 1764583203000},
	})
}

// testExports downloads the exports from the Actions menu (which closes
// after each), checks that JSONL is the file byte for byte, and opens the
// HTML export from disk: it reads like the page (Markdown, tool cards,
// diff, thinking collapsed, model and cost), follows the dark scheme,
// loads nothing and runs nothing.
func testExports(t *testing.T, r *rig) {
	id := exportSession(t, r.dir)
	r.openSession(t, id, `document.querySelector('.row')`)
	hrefs := map[string]string{}
	for _, name := range []string{"Export HTML", "Export Markdown", "Export JSONL (whole file)", "Export this branch as JSONL"} {
		r.click(t, `.menu > button`)
		r.waitJS(t, `document.querySelector('.menu-pop')`)
		hrefs[name] = eval[string](t, r.browser, fmt.Sprintf(`(() => { const a = [...document.querySelectorAll('.menu-pop a[download]')].find(a => a.textContent.trim() === %q);
			a.addEventListener('click', (e) => e.preventDefault()); a.click(); return a.getAttribute('href'); })()`, name))
		r.waitJS(t, `!document.querySelector('.menu-pop')`)
	}
	file, _ := os.ReadFile(r.sessionFile(t, id))
	if got := eval[string](t, r.browser, fmt.Sprintf(`fetch(%q).then(r => r.text())`, hrefs["Export JSONL (whole file)"])); got != string(file) {
		t.Errorf("JSONL export is not the file")
	}
	md := eval[string](t, r.browser, fmt.Sprintf(`fetch(%q).then(r => r.text())`, hrefs["Export Markdown"]))
	for _, want := range []string{"## Assistant", "claude-export", "<details><summary>Thinking</summary>", "```diff"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown export lacks %q", want)
		}
	}
	page := eval[string](t, r.browser, fmt.Sprintf(`fetch(%q).then(r => r.text())`, hrefs["Export HTML"]))
	path := filepath.Join(t.TempDir(), "export.html")
	os.WriteFile(path, []byte(page), 0o644)
	r.run(t, chromedp.Navigate("file://"+path))
	r.waitJS(t, `document.querySelector('article.msg')`)
	for _, c := range []struct{ js, what string }{
		{`document.querySelector('.user .md strong')?.textContent === 'fix'`, "Markdown rendered"},
		{`document.querySelector('.assistant .md li code')?.textContent === 'list'`, "lists and code"},
		{`document.querySelector('details.thinking') && !document.querySelector('details.thinking').open`, "thinking collapsed"},
		{`document.querySelector('details.tool.error .exit.bad')?.textContent === 'exit 1'`, "the failed bash card"},
		{`document.querySelector('.diff .add')?.textContent === '+new'`, "the edit's diff"},
		{`document.querySelector('.assistant .meta')?.textContent.includes('claude-export') && document.querySelector('.assistant .meta').textContent.includes('$')`, "model and cost"},
		{`!document.querySelector('script') && !window.pwned`, "no script"},
		{`document.querySelector('.user .md').textContent.includes('onerror="window.pwned=40"')`, "markup shown as text"},
	} {
		if !eval[bool](t, r.browser, c.js) {
			t.Errorf("HTML export: %s", c.what)
		}
	}
	if bad := eval[string](t, r.browser, noMarkupJS); bad != "" {
		t.Errorf("HTML export made elements of message markup: %s", bad)
	}
	light := eval[string](t, r.browser, `getComputedStyle(document.body).backgroundColor`)
	r.run(t, emulateScheme("dark"))
	if dark := eval[string](t, r.browser, `getComputedStyle(document.body).backgroundColor`); dark == light {
		t.Errorf("HTML export has no dark scheme (%s)", dark)
	}
	if shooting() {
		r.screenshot(t, "export-dark")
	}
	r.run(t, emulateScheme("light"))
}
