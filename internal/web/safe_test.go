package web

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// evil is markup that runs window.pwned = n wherever it becomes HTML: as
// an element with a handler, a script, a javascript: link or frame, in
// HTML and in Markdown.
func evil(n int) string {
	return fmt.Sprintf(`<img src=x onerror="window.pwned=%[1]d"> <script>window.pwned=%[1]d</script> <svg onload="window.pwned=%[1]d"></svg>`+
		` <a href="javascript:window.pwned=%[1]d">a</a> <iframe src="javascript:window.pwned=%[1]d"></iframe> [md](javascript:window.pwned=%[1]d) **bold%[1]d**`, n)
}

// noMarkupJS lists what in the page came from message markup: elements
// with an on* handler, scripts, frames, javascript: or data: links, and
// images that are not the app's own data: images; empty when
// there is none.
const noMarkupJS = `(() => {
	const bad = [];
	for (const e of document.querySelectorAll('body *')) {
		for (const a of e.attributes) if (a.name.startsWith('on')) bad.push(e.tagName + '[' + a.name + ']');
		const tag = e.tagName.toLowerCase();
		if (['script', 'iframe', 'object', 'embed', 'svg', 'style'].includes(tag) && !e.closest('.composer, label, .msg-tool, .chip')) bad.push(tag); // the page's own icons
		if (tag === 'a' && /^\s*(javascript|data):/i.test(e.getAttribute('href') || '')) bad.push('a ' + e.getAttribute('href'));
		if (tag === 'img' && !(e.getAttribute('src') || '').startsWith('data:image/')) bad.push('img ' + e.getAttribute('src'));
	}
	return bad.join(', ') + (window.pwned ? ' ran ' + window.pwned : ''); })()`

// testMarkdownIsSafe puts markup in every text a session shows (messages
// of each role, tool arguments and results, summaries, the session's name,
// labels, the model name, image types) and requires that none of it
// becomes markup anywhere: the conversation with everything expanded, the
// tree panel, the sidebar, the title and search snippets.
func testMarkdownIsSafe(t *testing.T, r *rig) {
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}
	}
	result := func(id, name, text string) map[string]any {
		return map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name, "content": []any{map[string]any{"type": "text", "text": text}}, "isError": false, "timestamp": 5}
	}
	badImage := map[string]any{"type": "image", "data": "x\" onerror=\"window.pwned=30", "mimeType": "image/png"}
	badType := map[string]any{"type": "image", "data": onePixel, "mimeType": "image/png\" onerror=\"window.pwned=31"}
	id := writeSession(t, r.dir, "/tmp/evil", []map[string]any{
		{"role": "user", "content": []any{map[string]any{"type": "text", "text": evil(1)}, badImage, badType}, "timestamp": 1},
		{"role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": evil(2) + "\n\n```html\n" + evil(3) + "\n```"},
			map[string]any{"type": "thinking", "thinking": evil(4)},
			call("c1", "bash", map[string]any{"command": evil(5)}),
			call("c2", "read", map[string]any{"path": evil(6) + ".html"}),
			call("c3", "edit", map[string]any{"path": "a.html", "edits": []any{map[string]any{"oldText": evil(7), "newText": evil(8)}}}),
			call("c4", "write", map[string]any{"path": "b.html", "content": evil(9)}),
			call("c5", "other", map[string]any{"x": evil(10)}),
		}, "api": "x", "provider": "x", "model": evil(11), "usage": usage(), "stopReason": "toolUse", "timestamp": 2},
		result("c1", "bash", evil(12)+"\n\nCommand exited with code 1"),
		result("c2", "read", evil(13)),
		result("c3", "edit", evil(14)),
		result("c4", "write", evil(15)),
		result("c5", "other", evil(16)),
		{"role": "bashExecution", "command": evil(17), "output": evil(18), "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 6},
		{"type": "custom_message", "customType": evil(19), "content": evil(20), "display": true},
		{"type": "branch_summary", "fromId": "e0000001", "summary": evil(21)},
		{"type": "compaction", "summary": evil(22), "firstKeptEntryId": "e0000001", "tokensBefore": 100},
		{"type": "session_info", "name": evil(23)},
		{"type": "label", "targetId": "e0000001", "label": evil(24)},
		{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "the end"}}, "api": "x", "provider": "x", "model": "m",
			"usage": usage(), "stopReason": "error", "errorMessage": evil(25), "timestamp": 7},
	})
	r.openSession(t, id, `document.querySelector('.row[data-role=assistant] strong') && document.querySelector('.sess-name')?.innerText.includes('pwned')`)
	eval[bool](t, r.browser, `(document.querySelectorAll('.conv details').forEach((d) => { d.open = true; }), true)`)
	r.click(t, `.card.compaction .card-head button`)
	r.waitJS(t, `document.querySelector('.hidden-history')`)
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, `document.querySelector('.tnode .tlabel')?.textContent.includes('pwned')`)
	if bad := eval[string](t, r.browser, noMarkupJS); bad != "" {
		t.Errorf("message markup became elements: %s", bad)
	}
	// What was written shows as text.
	for _, c := range []struct {
		sel string
		n   int
	}{
		{`.row[data-role=user] .md`, 1}, {`.row[data-role=assistant] .md`, 2}, {`.row[data-role=assistant] .code`, 3},
		{`.thinking-body`, 4}, {`.tool .cmd`, 5}, {`.tool .diff`, 7}, {`.tool .diff`, 8}, {`.model`, 11}, {`.tool .out`, 12},
		{`.row[data-role=bashExecution]`, 17}, {`.row[data-role=custom]`, 20}, {`.row[data-role=branchSummary]`, 21},
		{`.card.compaction`, 22}, {`.sess-name`, 23}, {`.tnode .tlabel`, 24}, {`.stop.error`, 25},
		{`.sess[data-id="` + id + `"]`, 23},
	} {
		want := fmt.Sprintf(`onerror="window.pwned=%d"`, c.n)
		if !eval[bool](t, r.browser, fmt.Sprintf(`[...document.querySelectorAll(%q)].some((e) => e.textContent.includes(%q))`, c.sel, want)) {
			t.Errorf("%s does not show %s as text", c.sel, want)
		}
	}
	// The title follows the session's name once the page has it.
	r.waitJS(t, `document.title.includes('<img')`)
	// Search snippets.
	r.run(t, chromedp.KeyEvent("k", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	r.waitJS(t, `document.querySelector('.dialog.search input')`)
	r.run(t, chromedp.SendKeys(`.dialog.search input`, "onerror pwned"))
	r.waitJS(t, `document.querySelector('.hit[data-session="`+id+`"] mark')`)
	if bad := eval[string](t, r.browser, noMarkupJS); bad != "" {
		t.Errorf("search snippets made elements: %s", bad)
	}
}
