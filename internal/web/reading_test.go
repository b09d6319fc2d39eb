package web

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// The reading rig's cases (app_test.go) of the sidebar, the messages,
// the header's facts and tools, images and hidden entries.

func testSidebarGroupsAndForks(t *testing.T, r *rig) {
	// A clone of the basic session, written the way pi writes one, must
	// nest under it.
	src := r.sessionFile(t, basicID)
	s, err := pisession.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	content, err := s.Clone(src)
	if err != nil {
		t.Fatal(err)
	}
	clone, err := sessionstore.NewFile(filepath.Dir(src), content)
	if err != nil {
		t.Fatal(err)
	}
	cloneID := strings.TrimSuffix(filepath.Base(clone)[strings.Index(filepath.Base(clone), "_")+1:], ".jsonl")
	r.waitIndexed(t, cloneID)
	r.openReady(t, "/", `document.querySelectorAll('.sess').length >= 20`)
	groups := eval[[]string](t, r.browser, `[...document.querySelectorAll('.group-name')].map(e => e.textContent)`)
	for _, want := range []string{"proj", "work", "other"} {
		if !contains(groups, want) {
			t.Errorf("groups %v lack %q", groups, want)
		}
	}
	nested := eval[bool](t, r.browser, fmt.Sprintf(`!!document.querySelector('.sess[data-id=%q] + .nested .sess[data-id=%q]')`, basicID, cloneID))
	if !nested {
		t.Errorf("clone %s not nested under %s", cloneID, basicID)
	}
	// Real pi's forks of a fork (rpc fixture s04), whose parentSession
	// paths name the folder they were written in, not this one: two levels.
	for _, f := range [][2]string{{piForkRoot, piFork1}, {piFork1, piFork2}} {
		sel := fmt.Sprintf(`.sess[data-id=%q] + .nested > li > .sess.fork[data-id=%q]`, f[0], f[1])
		if r.count(t, sel) != 1 {
			t.Errorf("pi's fork %s not nested under %s", f[1], f[0])
		}
	}
	// The tree panel shows the lineage both ways.
	r.openReady(t, "/s/"+cloneID, `document.querySelector('.row')`)
	r.run(t, chromedp.KeyEvent("t"))
	r.waitJS(t, fmt.Sprintf(`document.querySelector('.lineage a[href="/s/%s"]')`, basicID))
	r.openReady(t, "/s/"+basicID, fmt.Sprintf(`document.querySelector('.lineage a[href="/s/%s"]')`, cloneID))
	r.openReady(t, "/", `document.querySelectorAll('.sess').length >= 20`)
	// Sessions are newest first within a group.
	ok := eval[bool](t, r.browser, `[...document.querySelectorAll('.group')].every(g => {
		const ts = [...g.querySelectorAll(':scope > .sess-list > li > .sess')].map(a => a.title.slice(0, 16));
		return ts.every((t, i) => i == 0 || ts[i-1] >= t); })`)
	if !ok {
		t.Error("sessions not sorted by last activity")
	}
	// Name or first message, count and size are shown.
	item := r.text(t, fmt.Sprintf(`.sess[data-id=%q]`, basicID))
	for _, want := range []string{"Sample session", "8 msg", "KB"} {
		if !strings.Contains(item, want) {
			t.Errorf("sidebar item %q lacks %q", item, want)
		}
	}
	if ago := r.text(t, fmt.Sprintf(`.sess[data-id=%q] .sess-meta span`, basicID)); !regexp.MustCompile(`^(now|\d+(y|mo|w|d|h|m))$`).MatchString(ago) {
		t.Errorf("sidebar item's relative time %q", ago)
	}
	// Collapsing a group hides its sessions; the quick filter narrows.
	r.click(t, `.group-head`)
	r.waitJS(t, `document.querySelector('.group-head').getAttribute('aria-expanded') === 'false'`)
	r.run(t, chromedp.SendKeys(`.side-filter input`, "Sample"))
	r.waitJS(t, `[...document.querySelectorAll('.sess')].every(a => a.innerText.includes('Sample'))`)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func testMessagesRender(t *testing.T, r *rig) {
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row[data-role=user]')`)
	// HTML-looking text is text.
	if got := r.text(t, `.row[data-role=user]`); !strings.Contains(got, "Read src/a.ts <please> &") {
		t.Errorf("user text = %q", got)
	}
	checks := map[string]string{
		`.row .thinking summary`:           "Thinking",
		`.row .tool .tool-name`:            "read",
		`.row[data-role=branchSummary]`:    "Branch summary",
		`.row[data-role=assistant] .model`: "claude-sonnet-4-5",
		`.row[data-role=assistant] .usage`: "10 in · 5 out",
		`.sess-head .sess-name`:            "Sample session",
	}
	for sel, want := range checks {
		if got := r.text(t, sel); !strings.Contains(got, want) {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	// Each message has its time (the date in its title), and usage with cost.
	if ts := r.text(t, `.row[data-role=assistant] .ts`); !regexp.MustCompile(`^\d\d:\d\d:\d\d$`).MatchString(ts) {
		t.Errorf("message time %q", ts)
	}
	if got := eval[string](t, r.browser, `document.querySelector('.row[data-role=assistant] .ts').title`); !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d$`).MatchString(got) {
		t.Errorf("message date %q", got)
	}
	if got := r.text(t, `.row[data-role=assistant] .usage`); !strings.Contains(got, "$0.") {
		t.Errorf("usage %q lacks the cost", got)
	}
	testHeaderFacts(t, r)
	// The read result is paired into its call, not shown on its own.
	if n := r.count(t, `.row[data-role=toolResult]`); n != 0 {
		t.Errorf("%d unpaired tool results shown", n)
	}
	r.click(t, `.row .tool summary`)
	r.waitJS(t, `document.querySelector('.row .tool .tool-body').innerText.includes('export const a = 1')`)
	if n := r.count(t, `.row .tool .tok-k`); n == 0 {
		t.Error("read output not highlighted")
	}
	if got := r.text(t, `.row .tool .lines-n`); got != "1 line" { // one line and its newline
		t.Errorf("read of a one-line file says %q", got)
	}
	// The branch with the compaction and the error message.
	r.openReady(t, "/s/"+basicID+"?leaf=5653d4de", `document.querySelector('.row .stop')`)
	if got := r.text(t, `.row .stop`); !strings.Contains(got, "Error") {
		t.Errorf("error message = %q", got)
	}
	if got := r.text(t, `.card.compaction .card-head`); !strings.Contains(got, "1.2k tokens before") {
		t.Errorf("compaction card = %q", got)
	}
	if got := r.text(t, `.row[data-role=bashExecution]`); !strings.Contains(got, "$ ls") || !strings.Contains(got, "exit 0") {
		t.Errorf("bashExecution = %q", got)
	}
	if got := r.text(t, `.row[data-role=custom]`); !strings.Contains(got, "Injected context") {
		t.Errorf("custom message = %q", got)
	}
	// Expanding the compaction reveals the hidden history, greyed.
	if n := r.count(t, `.hidden-history`); n != 0 {
		t.Fatal("compaction open before asked")
	}
	r.click(t, `.card.compaction .card-head button`)
	r.waitJS(t, `document.querySelector('.hidden-history #e-f202c394')`)
	op := eval[string](t, r.browser, `getComputedStyle(document.querySelector('.hidden-history')).opacity`)
	if op == "1" {
		t.Error("hidden history not greyed")
	}
	// In place: inside the compaction's card, above the messages it kept,
	// which are not greyed.
	inPlace := eval[string](t, r.browser, `(() => {
		const h = document.querySelector('.hidden-history');
		const card = h.closest('.row');
		const rows = [...document.querySelectorAll('.conv .row')].filter((x) => !x.closest('.hidden-history'));
		const next = rows[rows.indexOf(card) + 1];
		if (!card || card.dataset.role !== 'compactionSummary') return 'not in the compaction card';
		if (!next) return 'no message after the compaction';
		if (!(h.compareDocumentPosition(next) & Node.DOCUMENT_POSITION_FOLLOWING)) return 'below the kept messages';
		let o = 1;
		for (let e = next; e; e = e.parentElement) o *= +getComputedStyle(e).opacity;
		return o === 1 ? '' : 'kept messages greyed too'; })()`)
	if inPlace != "" {
		t.Errorf("hidden history: %s", inPlace)
	}
}

// testHeaderFacts: the session header shows the cwd, models, tokens and
// cost, and when the session was created and last active.
func testHeaderFacts(t *testing.T, r *rig) {
	r.waitJS(t, `[...document.querySelectorAll('.sess-facts .fact')].some((f) => f.textContent.includes('tokens'))`)
	if got := r.text(t, `.sess-facts .cwd`); got != "/home/user/proj" {
		t.Errorf("cwd %q", got)
	}
	facts := r.text(t, `.sess-facts`)
	for _, re := range []string{`claude-sonnet-4-5`, `\d+ tokens · \$0\.\d+`, `created (just now|\d+\w+ ago) · active (just now|\d+\w+ ago)`, `\d+ messages( on this branch · \d+ in the file)? · [\d.]+ KB`} {
		if !regexp.MustCompile(re).MatchString(facts) {
			t.Errorf("header facts %q lack %s", facts, re)
		}
	}
	dates := eval[string](t, r.browser, `[...document.querySelectorAll('.sess-facts .fact')].find((f) => f.textContent.startsWith('created')).title`)
	if !regexp.MustCompile(`^created \d{4}-\d\d-\d\d \d\d:\d\d\nmodified \d{4}-\d\d-\d\d \d\d:\d\d$`).MatchString(dates) {
		t.Errorf("created and modified dates %q", dates)
	}
}

const onePixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

func testToolsImagesAndHidden(t *testing.T, r *rig) {
	img := map[string]any{"type": "image", "data": onePixel, "mimeType": "image/png"}
	call := func(id, name string, args map[string]any) map[string]any {
		return map[string]any{"type": "toolCall", "id": id, "name": name, "arguments": args}
	}
	result := func(id, name, text string, isErr bool, extra ...any) map[string]any {
		content := []any{map[string]any{"type": "text", "text": text}}
		content = append(content, extra...)
		return map[string]any{"role": "toolResult", "toolCallId": id, "toolName": name, "content": content, "isError": isErr, "timestamp": 5}
	}
	id := writeSession(t, r.dir, "/tmp/tools", []map[string]any{
		{"role": "user", "content": []any{map[string]any{"type": "text", "text": "look at this"}, img}, "timestamp": 1},
		{"type": "custom_message", "customType": "secret-ext", "content": "never shown", "display": false},
		{"role": "assistant", "content": []any{
			call("c1", "bash", map[string]any{"command": "false"}),
			call("c2", "edit", map[string]any{"path": "a.go", "edits": []any{map[string]any{"oldText": "old line", "newText": "new line"}}}),
			call("c3", "write", map[string]any{"path": "b.py", "content": "def f():\n    return 1\n"}),
			call("c4", "screenshot", map[string]any{}),
		}, "api": "x", "provider": "p", "model": "m", "usage": usage(), "stopReason": "toolUse", "timestamp": 2},
		result("c1", "bash", "oops\n\nCommand exited with code 1", true),
		result("c2", "edit", "Successfully replaced text", false),
		result("c3", "write", "wrote", false),
		result("c4", "screenshot", "here", false, img),
		{"role": "assistant", "content": []any{}, "api": "x", "provider": "p", "model": "m", "usage": usage(), "stopReason": "aborted", "errorMessage": "Request was aborted", "timestamp": 6},
	})
	r.openSession(t, id, `document.querySelector('.row[data-role=assistant] .tool')`)
	if n := r.count(t, `.row[data-role=user] img.msg-img[src^="data:image/png;base64,"]`); n != 1 {
		t.Errorf("user image: %d", n)
	}
	if n := r.count(t, `.tool img.msg-img`); n != 1 {
		t.Errorf("tool result image: %d", n)
	}
	if got := r.text(t, `.conv`); strings.Contains(got, "never shown") {
		t.Error("custom message with display false is shown")
	}
	bash := r.text(t, `.tool.error`)
	if !strings.Contains(bash, "$ false") || !strings.Contains(bash, "exit 1") || !strings.Contains(bash, "oops") {
		t.Errorf("bash card = %q", bash)
	}
	if r.count(t, `.tool .diff .tok-del`) != 1 || r.count(t, `.tool .diff .tok-add`) != 1 {
		t.Error("edit not shown as a diff")
	}
	if got := r.text(t, `.tool .diff`); !strings.Contains(got, "-old line") || !strings.Contains(got, "+new line") {
		t.Errorf("diff = %q", got)
	}
	if n := r.count(t, `.row[data-role=toolResult]`); n != 0 {
		t.Errorf("%d results not paired", n)
	}
	write := eval[string](t, r.browser, `[...document.querySelectorAll('.tool')].find((e) => e.querySelector('.tool-name').textContent === 'write')?.querySelector('summary').innerText || ''`)
	if !strings.Contains(write, "b.py") || !strings.Contains(write, "2 lines") {
		t.Errorf("write card %q", write)
	}
	if !eval[bool](t, r.browser, `[...document.querySelectorAll('.tool')].some((e) => e.querySelector('.tool-name').textContent === 'write' && e.querySelector('.tool-body .code .tok-k')?.textContent === 'def')`) {
		t.Error("written file not shown highlighted")
	}
	if got := r.text(t, `.stop.aborted`); !strings.Contains(got, "Aborted") {
		t.Errorf("aborted = %q", got)
	}
}
