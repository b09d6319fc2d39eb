package pisession

import (
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
