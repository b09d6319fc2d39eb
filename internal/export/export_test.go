package export

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"piweb/pisession"
)

func msg(t *testing.T, v map[string]any) pisession.Message {
	t.Helper()
	b, _ := json.Marshal(v)
	m, ok := pisession.DecodeMessage(b)
	if !ok {
		t.Fatalf("not a message: %s", b)
	}
	return m
}

// evil is markup that would run where it became HTML.
const evil = `<script>window.pwned=1</script> <img src=x onerror="window.pwned=2"> [a](javascript:window.pwned=3) <a href="javascript:x">b</a> **bold**`

func doc(t *testing.T) Doc {
	return Doc{Title: "<b>title</b>", ID: "id1", Cwd: "/p", Messages: []pisession.Message{
		msg(t, map[string]any{"role": "user", "content": evil, "timestamp": 1764583200000}),
		msg(t, map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "pondering " + evil},
			map[string]any{"type": "text", "text": "Here is `code` and a table:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" + evil},
			map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "ls " + evil}},
			map[string]any{"type": "toolCall", "id": "c2", "name": "edit", "arguments": map[string]any{"path": "a.go", "oldText": "old line", "newText": "new line"}},
		}, "model": "claude-x", "provider": "p", "usage": map[string]any{"input": 1200, "output": 80, "cost": map[string]any{"total": 0.0067}}, "stopReason": "toolUse", "timestamp": 1764583201000}),
		msg(t, map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": "out " + evil + "\n\nCommand exited with code 2"}}, "isError": true}),
		msg(t, map[string]any{"role": "toolResult", "toolCallId": "c2", "toolName": "edit", "content": []any{map[string]any{"type": "text", "text": "ok"}}}),
	}}
}

// TestHTMLRunsNothing: every text of the session is escaped or rendered
// without raw HTML; the page has no script and a CSP that forbids any.
func TestHTMLRunsNothing(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, doc(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<script", "<img src=\"x", "<img src=x", `href="javascript:`, "<a href=\"javascript"} {
		if strings.Contains(out, bad) {
			t.Errorf("export has %q", bad)
		}
	}
	if re := regexp.MustCompile(`<[a-z]+[^>]*\son\w+=`); re.MatchString(out) {
		t.Errorf("event handler attribute: %s", re.FindString(out))
	}
	for _, want := range []string{
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none';`,
		"<title>&lt;b&gt;title&lt;/b&gt;</title>",
		"<strong>bold</strong>", "<code>code</code>", "<table>", // Markdown rendered
		`<details class="thinking"><summary>Thinking</summary>`, // collapsed
		`<details class="tool error" open>`, "exit 2",           // a failed bash card
		`<span class="del">-old line</span>`, `<span class="add">&#43;new line</span>`, // the edit's diff
		"claude-x · 1.2k in · 80 out · $0.0067", "prefers-color-scheme: dark",
		"&lt;script&gt;window.pwned=1&lt;/script&gt;", // raw HTML shows as text, as on the page
	} {
		if !strings.Contains(out, want) {
			t.Errorf("export lacks %q", want)
		}
	}
}

// TestLivePage: a page piweb serves (Doc.Live) has its one script, by
// address, under the live CSP, asks not to be indexed or to send a
// Referer, and carries its version; what the session holds still runs
// nothing.
func TestLivePage(t *testing.T) {
	d := doc(t)
	d.Live, d.Version = "/share/live.js", `12-34"><script>`
	var b bytes.Buffer
	if err := HTML(&b, d); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "<script"); n != 1 {
		t.Errorf("%d scripts, want the one", n)
	}
	for _, want := range []string{`<script src="/share/live.js" defer></script>`, `content="` + LiveCSP + `"`,
		`<meta name="robots" content="noindex, nofollow">`, `<meta name="referrer" content="no-referrer">`,
		`data-version="12-34&#34;&gt;&lt;script&gt;"`} {
		if !strings.Contains(out, want) {
			t.Errorf("live page lacks %q", want)
		}
	}
}

func TestMarkdownExport(t *testing.T) {
	var b bytes.Buffer
	if err := Markdown(&b, doc(t)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"# <b>title</b>", "## You · 2025-12-01 10:00 UTC", "## Assistant · 2025-12-01 10:00 UTC · claude-x · 1.2k in · 80 out · $0.0067",
		"<details><summary>Thinking</summary>\n\n> pondering", "**bash** ` $ ls <script>", "— exit 2", "```diff\n-old line\n+new line\n```", "| a | b |"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown export lacks %q:\n%s", want, out)
		}
	}
}

func TestFence(t *testing.T) {
	if got := fence("a ```` b", ""); !strings.HasPrefix(got, "`````\n") {
		t.Errorf("fence %q", got)
	}
}

func TestFmtCost(t *testing.T) {
	for c, want := range map[float64]string{0: "$0", 0.0067: "$0.0067", 0.012: "$0.012", 0.00004: "<$0.0001", 1.256: "$1.26", 0.5: "$0.500"} {
		if got := FmtCost(c); got != want {
			t.Errorf("FmtCost(%v) = %q, want %q", c, got, want)
		}
	}
}

// TestMessageCount: an export counts every message of its branch, tool
// results too, as the page's header does (docs/decisions/0032).
func TestMessageCount(t *testing.T) {
	for _, c := range []struct {
		name   string
		render func(*bytes.Buffer, Doc) error
		want   string
	}{
		{"html", func(b *bytes.Buffer, d Doc) error { return HTML(b, d) }, "<span>4 messages</span>"},
		{"markdown", func(b *bytes.Buffer, d Doc) error { return Markdown(b, d) }, "- 4 messages ·"},
	} {
		var b bytes.Buffer
		if err := c.render(&b, doc(t)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("%s export lacks %q", c.name, c.want)
		}
	}
}
