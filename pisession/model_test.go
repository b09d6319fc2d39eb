package pisession

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pi16Files returns the session files pi 1.6.0 wrote over RPC, copied into
// testdata.
func pi16Files(t testing.TB) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(filepath.Join("testdata", "pi-1.6.0"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "list" {
			return filepath.SkipDir // listing edge cases, some refused by pi's loader
		}
		if err == nil && filepath.Ext(p) == ".jsonl" {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no pi 1.6.0 files in testdata")
	}
	return files
}

// TestMessageModelPi16 decodes every message pi 1.6.0 wrote: every role
// and block type decodes, and the 1.x fields are read.
func TestMessageModelPi16(t *testing.T) {
	roles, blocks := map[string]int{}, map[string]int{}
	var durations, thinking, sections, tools, charges int
	for _, f := range pi16Files(t) {
		s := readSession(t, f)
		for _, e := range s.Entries {
			if _, ok := ChargeOf(e); ok {
				charges++
			}
			m, ok := e.Message()
			if !ok {
				continue
			}
			roles[m.Role]++
			for _, b := range m.Content.Blocks() {
				blocks[b.Type]++
			}
			if m.DurationMs > 0 {
				durations++
			}
			if m.ThinkingLevel != "" {
				thinking++
			}
			sections += len(m.Sections)
			tools += len(m.ToolsAdded)
		}
	}
	for _, r := range []string{RoleUser, RoleAssistant, RoleToolResult, RoleBashExecution, RoleSystem} {
		if roles[r] == 0 {
			t.Errorf("no %s message decoded (%v)", r, roles)
		}
	}
	for _, b := range []string{"text", "toolCall"} {
		if blocks[b] == 0 {
			t.Errorf("no %s block decoded (%v)", b, blocks)
		}
	}
	if durations == 0 || thinking == 0 || sections == 0 || tools == 0 || charges == 0 {
		t.Errorf("durations %d, thinking levels %d, sections %d, tools %d, charges %d: want all > 0",
			durations, thinking, sections, tools, charges)
	}
}

// TestDecodeMessage checks the fields of one message of each shape.
func TestDecodeMessage(t *testing.T) {
	raw := `{"role":"assistant","content":[{"type":"thinking","thinking":"hm","redacted":true},{"type":"text","text":"hi"},` +
		`{"type":"toolCall","id":"c1","name":"bash","namespace":"ns","arguments":{"command":"ls"}}],"api":"x","provider":"p","model":"m",` +
		`"responseModel":"m2","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cacheWrite1h":1,"reasoning":1,"totalTokens":10,` +
		`"cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3,"totalFromProvider":true}},"stopReason":"deferred",` +
		`"timestamp":1796307315008,"responseId":"r","rawStopReason":"end","durationMs":1200,"thinkingLevel":"max","model":"m1"}`
	m, ok := DecodeMessage([]byte(raw))
	if !ok {
		t.Fatal("not decoded")
	}
	m.Raw = nil
	blocks := m.Content.Blocks()
	for i := range blocks {
		blocks[i].Raw = nil
	}
	m.Content = Content{}
	want := Message{Role: "assistant", API: "x", Provider: "p", Model: "m1", ResponseModel: "m2", ResponseID: "r",
		StopReason: "deferred", RawStopReason: "end", ThinkingLevel: "max", DurationMs: 1200, Timestamp: 1796307315008,
		Usage: &Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, CacheWrite1h: 1, Reasoning: 1, TotalTokens: 10,
			Cost: Cost{Input: 0.1, Output: 0.2, Total: 0.3, TotalFromProvider: true}}}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	wantBlocks := []Block{{Type: "thinking", Thinking: "hm", Redacted: true}, {Type: "text", Text: "hi"},
		{Type: "toolCall", ID: "c1", Name: "bash", Namespace: "ns", Arguments: []byte(`{"command":"ls"}`)}}
	if diff := cmp.Diff(wantBlocks, blocks); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	c, _ := (&Message{Role: "assistant", Provider: "p", Model: "m1", ResponseModel: "m2", Usage: &Usage{}}).Charge()
	if c.Key != "p/m2" || !c.Answer {
		t.Errorf("charge %+v, want key p/m2 (responseModel wins)", c)
	}
}

// TestSearchable is the one definition of searchable text.
func TestSearchable(t *testing.T) {
	line := func(s string) *Entry {
		return Parse([]byte(hdr + "\n" + s + "\n")).Entries[0]
	}
	msg := func(m string) *Entry {
		return line(`{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":` + m + `}`)
	}
	cases := []struct {
		name string
		e    *Entry
		want Searchable
	}{
		{"user string", msg(`{"role":"user","content":"hello"}`), Searchable{Text: []string{"hello"}}},
		{"assistant", msg(`{"role":"assistant","content":[{"type":"thinking","thinking":"secret"},{"type":"text","text":"a"},{"type":"text","text":" "},{"type":"toolCall","arguments":{"x":1}}]}`),
			Searchable{Text: []string{"a"}, Tools: []string{`{"x":1}`}}},
		{"tool result", msg(`{"role":"toolResult","content":[{"type":"text","text":"out"}]}`), Searchable{Tools: []string{"out"}}},
		{"bash", msg(`{"role":"bashExecution","command":"ls","output":"f"}`), Searchable{Tools: []string{"ls", "f"}}},
		{"system", msg(`{"role":"system","content":"You are pi","sections":{"a":"b"}}`), Searchable{}},
		{"custom", msg(`{"role":"custom","content":"ext"}`), Searchable{}},
		{"compaction", line(`{"type":"compaction","id":"c","parentId":null,"timestamp":"t","summary":"sum","firstKeptEntryId":"c","tokensBefore":1}`),
			Searchable{Text: []string{"sum"}}},
		{"branch summary", line(`{"type":"branch_summary","id":"c","parentId":null,"timestamp":"t","fromId":"x","summary":"left"}`),
			Searchable{Text: []string{"left"}}},
		{"invalid utf8", msg("{\"role\":\"user\",\"content\":\"a\xffb\"}"), Searchable{Text: []string{"a\uFFFDb"}}},
	}
	for _, c := range cases {
		if diff := cmp.Diff(c.want, SearchableEntry(c.e)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestFactsOf: FactsOf says of every entry pi 1.6.0 wrote what
// Message, SearchableEntry and ChargeOf say of it one by one.
func TestFactsOf(t *testing.T) {
	var n, charged int
	for _, f := range pi16Files(t) {
		s := readSession(t, f)
		for _, e := range s.Entries {
			m, _ := e.Message()
			c, ok := ChargeOf(e)
			want := Facts{Role: m.Role, Searchable: SearchableEntry(e), Charge: c, Charged: ok}
			if diff := cmp.Diff(want, FactsOf(e)); diff != "" {
				t.Errorf("%s line %d (-one by one +FactsOf):\n%s", f, e.Line, diff)
			}
			n++
			if ok {
				charged++
			}
		}
	}
	if n == 0 || charged == 0 {
		t.Errorf("%d entries, %d charged: the files should have both", n, charged)
	}
}
