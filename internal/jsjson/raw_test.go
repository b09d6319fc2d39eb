package jsjson_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/jsjson"
)

func TestValueEnd(t *testing.T) {
	tests := []struct {
		in   string
		at   int
		want int
	}{
		{`"abc"`, 0, 5},
		{`"a\"b",`, 0, 6},
		{`"a\\"b`, 0, 5},
		{`"a\\\"b"`, 0, 8},
		{`{"a":[1,"]}"]}x`, 0, 14},
		{`[[],{}]`, 0, 7},
		{`123,`, 0, 3},
		{`-1.5e3}`, 0, 6},
		{`true]`, 0, 4},
		{`null "x"`, 0, 4},
		{`a:1`, 0, 1}, // malformed: the word ends at the colon
		{`1"x"`, 0, 1},
		{`  1`, 0, -1}, // white space is not a value
		{`,`, 0, -1},
		{`}`, 0, -1},
		{`"abc`, 0, -1},
		{`"abc\"`, 0, -1},
		{`{"a":1`, 0, -1},
		{`[{]`, 0, -1},
		{`{]`, 0, 2}, // brackets are counted, not matched
		{``, 0, -1},
		{`1`, 1, -1},
		{`1`, -1, -1},
	}
	for _, tt := range tests {
		if got := jsjson.ValueEnd([]byte(tt.in), tt.at); got != tt.want {
			t.Errorf("ValueEnd(%q, %d) = %d, want %d", tt.in, tt.at, got, tt.want)
		}
	}
}

// collect returns what Members and Elements yield for in.
func collect(in string) (members, elements []string) {
	for k, v := range jsjson.Members([]byte(in)) {
		members = append(members, string(k)+"="+string(v))
	}
	for el := range jsjson.Elements([]byte(in)) {
		elements = append(elements, string(el))
	}
	return members, elements
}

func TestMembersElements(t *testing.T) {
	tests := []struct {
		in       string
		members  []string
		elements []string
	}{
		{in: `{}`},
		{in: `[]`},
		{in: ` { "a" : 1 , "b":"x\"}" ,"c":[{}]} `, members: []string{`"a"=1`, `"b"="x\"}"`, `"c"=[{}]`}},
		{in: `{"a":1,"a":2}`, members: []string{`"a"=1`, `"a"=2`}},
		{in: "[1,\n\"two\" ,{\"x\":[]}, null]", elements: []string{`1`, `"two"`, `{"x":[]}`, `null`}},
		// Malformed input yields a prefix and stops.
		{in: `{"a":1,"b"2,"c":3}`, members: []string{`"a"=1`}},
		{in: `{"a":1 "b":2}`, members: []string{`"a"=1`}},
		{in: `{"a":1,}`, members: []string{`"a"=1`}},
		{in: `{"a":"unterminated}`},
		{in: `{"a":,"b":1}`},
		{in: `{a:1}`},
		{in: `{"a":[1,2}`, members: []string{`"a"=[1,2}`}}, // brackets are counted, not matched
		{in: `[1 2]`, elements: []string{`1`}},
		{in: `[,1]`},
		{in: `[1,,2]`, elements: []string{`1`}},
		{in: `[1,]`, elements: []string{`1`}},
		{in: `["x`},
		{in: `x`},
		{in: ``},
		{in: `"{\"a\":1}"`},
	}
	for _, tt := range tests {
		m, e := collect(tt.in)
		if diff := cmp.Diff(tt.members, m); diff != "" {
			t.Errorf("Members(%q) (-want +got):\n%s", tt.in, diff)
		}
		if diff := cmp.Diff(tt.elements, e); diff != "" {
			t.Errorf("Elements(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestMembersStop(t *testing.T) {
	n := 0
	for range jsjson.Members([]byte(`{"a":1,"b":2,"c":3}`)) {
		if n++; n == 2 {
			break
		}
	}
	for range jsjson.Elements([]byte(`[1,2,3]`)) {
		if n++; n == 4 {
			break
		}
	}
	if n != 4 {
		t.Errorf("iterations = %d, want 4", n)
	}
}

func TestField(t *testing.T) {
	obj := `{"type":"a","id":1,"type":"b","t\u0079pe":"c","x\\y":2,"m":{"type":"inner"}}`
	tests := []struct {
		name, field, first string
	}{
		{"type", `"c"`, `"a"`},
		{"id", `1`, `1`},
		{`x\y`, `2`, `2`},
		{`x\\y`, ``, ``},
		{"m", `{"type":"inner"}`, `{"type":"inner"}`},
		{"inner", ``, ``},
		{"", ``, ``},
	}
	for _, tt := range tests {
		if got := string(jsjson.Field([]byte(obj), tt.name)); got != tt.field {
			t.Errorf("Field(%q) = %q, want %q", tt.name, got, tt.field)
		}
		if got := string(jsjson.FirstField([]byte(obj), tt.name)); got != tt.first {
			t.Errorf("FirstField(%q) = %q, want %q", tt.name, got, tt.first)
		}
	}
	if got := jsjson.Field([]byte(`[1]`), "a"); got != nil {
		t.Errorf("Field of an array = %q, want nil", got)
	}
}

func TestKeyIs(t *testing.T) {
	tests := []struct {
		key, name string
		want      bool
	}{
		{`"role"`, "role", true},
		{`"role"`, "rol", false},
		{`"r\u006fle"`, "role", true},
		{`"a\nb"`, "a\nb", true},
		{`"a\nb"`, `a\nb`, false},
		{`"a\\b"`, `a\b`, true},
		{`"role`, "rol", false},
		{`role"`, "ole", false},
		{`"\x"`, `\x`, false},
		{``, "", false},
		{`""`, "", true},
	}
	for _, tt := range tests {
		if got := jsjson.KeyIs([]byte(tt.key), tt.name); got != tt.want {
			t.Errorf("KeyIs(%q, %q) = %v, want %v", tt.key, tt.name, got, tt.want)
		}
	}
}

func TestDecodeString(t *testing.T) {
	tests := append(jsjson.StringCases,
		jsjson.StringCase{`"\ud800"`, "\uFFFD", true},
		jsjson.StringCase{`"\ud800\u0041"`, "\uFFFDA", true},
		jsjson.StringCase{`"\ude00\ud83d"`, "\uFFFD\uFFFD", true},
		jsjson.StringCase{"\"\xff\"", "\xff", true}, // invalid UTF-8 is kept, as the session parser keeps it
		jsjson.StringCase{"\"\xff\\n\"", "\xff\n", true},
	)
	for _, tt := range tests {
		got, ok := jsjson.DecodeString([]byte(tt.In))
		if ok != tt.OK || got != tt.Want {
			t.Errorf("DecodeString(%q) = %q, %v; want %q, %v", tt.In, got, ok, tt.Want, tt.OK)
		}
	}
}

// TestRawAllocs checks that finding members allocates nothing: the RPC
// reader reads the type of every event line.
func TestRawAllocs(t *testing.T) {
	line := []byte(`{"type":"message_update","message":{"role":"assistant","content":[{"type":"text","text":"` +
		strings.Repeat(`x\"y`, 100) + `"}]},"assistantMessageEvent":{"type":"text_delta","delta":"x"}}`)
	n := testing.AllocsPerRun(100, func() {
		jsjson.Field(line, "assistantMessageEvent")
		jsjson.FirstField(line, "type")
		for range jsjson.Elements(jsjson.Field(jsjson.Field(line, "message"), "content")) {
		}
	})
	if n != 0 {
		t.Errorf("allocations = %v, want 0", n)
	}
}

func TestDecodeStringPrefix(t *testing.T) {
	type out struct {
		S       string
		Cut, OK bool
	}
	tests := []struct {
		raw  string
		n    int
		want out
	}{
		{`"abc"`, 10, out{"abc", false, true}},
		{`"abc"`, 3, out{"abc", false, true}},
		{`"abcdef"`, 3, out{"abc", true, true}},
		{`"a\nbcdef"`, 2, out{"a\n", true, true}},           // the cut ends an escape
		{`"a\nbcdef"`, 1, out{"a", true, true}},             // the cut before an escape
		{`"ab\u00e9cdef"`, 3, out{"abé", true, true}},       // inside \u: up to its end
		{`"\\\\\\abc"`, 3, out{`\\`, true, true}},           // escaped backslashes
		{`"\ud83d\ude00xyz"`, 6, out{"\uFFFD", true, true}}, // a pair cut: a lone surrogate
		{`"\ud83d\ude00xyz"`, 12, out{"😀", true, true}},
		{`"abc`, 2, out{"", false, false}},
		{`12`, 2, out{"", false, false}},
	}
	for _, tt := range tests {
		var got out
		got.S, got.Cut, got.OK = jsjson.DecodeStringPrefix([]byte(tt.raw), tt.n)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("DecodeStringPrefix(%s, %d) (-want +got):\n%s", tt.raw, tt.n, diff)
		}
	}
}
