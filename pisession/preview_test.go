package pisession

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"piweb/internal/jsjson"
)

func TestPreview(t *testing.T) {
	long := strings.Repeat("é\\n", 2000)
	tests := []struct{ line, want string }{
		{`{"type":"message","id":"a","message":{"role":"user","content":"hi  there"}}`, "hi there"},
		{`{"type":"message","id":"a","message":{"role":"user","content":[{"type":"image","data":"xx"},{"type":"text","text":"look \"here\""}]}}`, `look "here"`},
		{`{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"thinking","thinking":"t"},{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}}]}}`, "bash"},
		{`{"type":"message","id":"a","message":{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"` + long + `"}]}}`, "read"},
		{`{"type":"message","id":"a","message":{"role":"bashExecution","command":"make test","output":"ok"}}`, "make test"},
		{`{"type":"session_info","id":"a","name":"Name"}`, "Name"},
		{`{"type":"message","id":"a","message":{"role":"user","content":"` + long + `"}}`, strings.Repeat("é ", 100)[:0]},
	}
	for i, tt := range tests {
		e := Parse([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}` + "\n" + tt.line + "\n")).Entries[0]
		got := preview(e)
		if tt.want == "" {
			if n := len([]rune(got)); n != 201 { // 200 runes and the ellipsis
				t.Errorf("%d: long preview has %d runes", i, n)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%d: preview %q, want %q", i, got, tt.want)
		}
	}
}

func FuzzRawJSON(f *testing.F) {
	f.Add(`{"role":"user","content":[{"type":"text","text":"a\u00e9\\"}]}`, 5)
	f.Add(`"abc\u12`, 3)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<12 {
			return
		}
		b := []byte(s)
		previewText(jsjson.Field(b, "content"), max)
		if got := prefixString(b, max); json.Valid(b) && len(b) <= max+2 && b[0] == '"' && b[len(b)-1] == '"' {
			var want string
			if json.Unmarshal(b, &want) == nil && utf8.Valid(b) && got != want {
				t.Fatalf("prefixString(%q) = %q, want %q", b, got, want)
			}
		}
	})
}

// FuzzCollapseClip checks the one-pass white space collapse and Clip
// against the forms they replace (strings.Fields and Join, a cut through
// []rune), invalid UTF-8 included.
func FuzzCollapseClip(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a  b\t\nc ", "\u00a0x\u2028y\u0085", "é\xffz  \xed\xa0\x80 w", "abc\xff", strings.Repeat("ab ", 150)} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, n uint8) {
		want := strings.Join(strings.Fields(s), " ")
		if got := collapseSpace(s); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
		if got, want := Clip(s, int(n)), clipRunes(s, int(n)); got != want {
			t.Fatalf("Clip(%q, %d) = %q, want %q", s, n, got, want)
		}
	})
}

// FuzzMessageField checks that a message's members read through the
// parse's recorded members are the ones its JSON holds.
func FuzzMessageField(f *testing.F) {
	f.Add([]byte(e1))
	f.Add([]byte(e2))
	f.Add([]byte(`{"type":"message","message":{"role":"user","content":"a","role":"toolResult","toolName":"x"},"message":{"ro\u006ce":"bashExecution","command":"ls"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		e := newEntry(line, 1, 0, nil)
		if e == nil || e.Type != "message" {
			return
		}
		m, field := e.Field("message"), messageField(e)
		for _, k := range []string{"role", "toolName", "command", "summary", "content"} {
			if got, want := field(k), jsjson.Field(m, k); !bytes.Equal(got, want) {
				t.Fatalf("member %s of %s: %q, its JSON has %q", k, line, got, want)
			}
		}
	})
}
