package agent

import (
	"encoding/json"
	"testing"
)

func TestField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		obj, key, want string
	}{
		{`{"type":"agent_start"}`, "type", `"agent_start"`},
		{`{"a":{"type":"x","b":[1,"}"]},"type":"y"}`, "type", `"y"`},
		{`{ "id" : "7" , "type" : "response" }`, "type", `"response"`},
		{`{"s":"a\"type\":\"no","type":"ok"}`, "type", `"ok"`},
		{`{"s":"a\\","type":"ok"}`, "type", `"ok"`},
		{`{"n":12.5e3,"t":true,"z":null,"type":"ok"}`, "type", `"ok"`},
		{`{"type":"x"}`, "missing", ``},
		{`[1,2]`, "type", ``},
		{`{"type":`, "type", ``},
		{`{"s":"unterminated`, "type", ``},
		{``, "type", ``},
	}
	for _, tt := range tests {
		if got := string(Event{Raw: []byte(tt.obj)}.Field(tt.key)); got != tt.want {
			t.Errorf("Field(%s, %q) = %q, want %q", tt.obj, tt.key, got, tt.want)
		}
	}
}

func TestFieldStringEscapes(t *testing.T) {
	t.Parallel()
	if got := fieldString([]byte(`{"type":"a\u0062\n"}`), "type"); got != "ab\n" {
		t.Errorf("got %q", got)
	}
	if got := fieldString([]byte(`{"type":"a\x"}`), "type"); got != "" {
		t.Errorf("invalid escape: got %q", got)
	}
	if got := fieldString([]byte(`{"type":3}`), "type"); got != "" {
		t.Errorf("non-string: got %q", got)
	}
}

// FuzzField checks Event.Field against encoding/json on valid objects: it
// must find exactly the top-level value, and never panic on garbage.
func FuzzField(f *testing.F) {
	f.Add([]byte(`{"type":"message_update","message":{"type":"z","c":["\"",{}]}}`))
	f.Add([]byte(`{"a":"\u2028","type":"x"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := Event{Raw: b}.Field("type")
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return
		}
		want, ok := m["type"]
		if !ok {
			return // duplicate or absent keys: no claim
		}
		var gv, wv any
		if json.Unmarshal(got, &gv) != nil || json.Unmarshal(want, &wv) != nil {
			t.Fatalf("field(%q) = %q, want %q", b, got, want)
		}
		gb, _ := json.Marshal(gv)
		wb, _ := json.Marshal(wv)
		if string(gb) != string(wb) {
			// encoding/json keeps the last duplicate key, Field the first.
			if countKey(b) > 1 {
				return
			}
			t.Fatalf("field(%q) = %q, want %q", b, got, want)
		}
	})
}

func countKey(b []byte) int {
	n := 0
	for i := 0; i+6 <= len(b); i++ {
		if string(b[i:i+6]) == `"type"` {
			n++
		}
	}
	return n
}
