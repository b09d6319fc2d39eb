package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/pisession"
)

// FuzzDecodeMessage checks the index's message decoding against the
// session package's model: the members it keeps, its charge and its
// searchable text.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hello there","timestamp":1}`,
		`{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"toolCall","arguments":{"a":1}}],"provider":"anthropic","model":"m1","usage":{"input":1,"output":2,"cost":{"total":0.5}}}`,
		`{"role":"assistant","provider":"p","model":"m","responseModel":"r","usage":{"input":3},"usage":7}`,
		`{"role":"toolResult","content":[{"type":"text","text":"out"}],"usage":{"output":4}}`,
		`{"role":"bashExecution","command":"ls","output":"a\nb"}`,
		`{"role":"branchSummary","summary":"s\u00e9"}`,
		`{"ro\u006ce":"compactionSummary","summary":"x","":"empty key"}`,
		`{"role":5,"model":null,"provider":"x\"y"}`,
		`[1,2]`, ` {"role":"user"} `, `{}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, tools bool) {
		pm, ok := pisession.DecodeMessage(raw)
		if !ok {
			return // not an object (invalid JSON is never given)
		}
		var m msg
		m.decode(raw, true, tools)
		check(t, raw, pm, m, tools)
		line := append(append([]byte(`{"type":"message","id":"a","message":`), raw...), "}\n"...)
		s := pisession.Parse(append([]byte(`{"type":"session","id":"s"}`+"\n"), line...))
		if len(s.Entries) == 1 && s.Entries[0].Type == "message" {
			var me msg
			me.decodeEntry(s.Entries[0], true, tools)
			check(t, raw, pm, me, tools)
		}
	})
}

// check compares m with the session package's decoding pm of raw.
func check(t *testing.T, raw []byte, pm pisession.Message, m msg, tools bool) {
	t.Helper()
	want := msg{Role: pm.Role} // with what its readers read of its role
	if pm.Role == pisession.RoleAssistant {
		want.Provider, want.Model, want.ResponseModel = pm.Provider, pm.Model, pm.ResponseModel
	}
	if pm.Role == pisession.RoleAssistant || pm.Role == pisession.RoleToolResult {
		want.Usage = pm.Usage
	}
	if tools || !toolOutput(pm.Role) {
		want.text = pm.Searchable()
	}
	if diff := cmp.Diff(want, m, cmp.AllowUnexported(msg{}), cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".usage"
	}, cmp.Ignore())); diff != "" {
		t.Fatalf("%s (-session +index):\n%s", raw, diff)
	}
	wc, wok := pm.Charge()
	gc, gok := m.Charge()
	if diff := cmp.Diff(wc, gc); diff != "" || wok != gok {
		t.Fatalf("%s: charge (-session +index):\n%s", raw, diff)
	}
}

func TestIsModel(t *testing.T) {
	for _, tc := range []struct{ provider, id string }{
		{"", "m"}, {"p", "m"}, {"anthropic", "claude"}, {"a/b", "c"}, {"a", "b/c"}, {"", "a/b"},
	} {
		name := modelName(tc.provider, tc.id)
		for _, other := range []string{name, "p/m", "m", "anthropic/claude", "a/b/c", "/m", "pm", ""} {
			if got, want := isModel(other, tc.provider, tc.id), other == name; got != want {
				t.Errorf("isModel(%q, %q, %q) = %v, want %v", other, tc.provider, tc.id, got, want)
			}
		}
	}
}
