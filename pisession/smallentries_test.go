package pisession

import (
	"fmt"
	"strings"
	"testing"
)

// TestMessageNotObjectAfterMessage: a line whose message is no object must
// not take the message members the line before it scanned (their offsets
// can fall inside its own message value): its role is none, as in pi.
func TestMessageNotObjectAfterMessage(t *testing.T) {
	prev := `{"type":"message","id":"a","parentId":null,"message":{"content":"x","role":"user"}}`
	next := `{"type":"message","id":"b","parentId":"a","message":"` + strings.Repeat("r", 80) + `"}`
	s := Parse([]byte(hdr + "\n" + prev + "\n" + next + "\n"))
	if got := s.ByID("a").Role(); got != "user" {
		t.Errorf("first entry's role = %q, want user", got)
	}
	if b := s.ByID("b"); b.Role() != "" || b.msg() != nil {
		t.Errorf("a message that is a string has role %q and members %v, want none", b.Role(), b.msg())
	}
}

// TestParseAllocsPerEntry keeps the parse of small entries cheap (issue
// 24): the per-entry cost, not the per-byte cost, decides a file of short
// turns. Before, an entry cost about 15 allocations (every member name,
// id, parent and type, their map keys and the structure checks' maps);
// then one (the id and parent keys and the timestamp share one string);
// now that string comes from a slab too, a few allocations for hundreds
// of entries.
func TestParseAllocsPerEntry(t *testing.T) {
	const n = 2000
	data := chainFile(n, `{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"a","provider":"p",`+
		`"model":"m","usage":{"input":1,"output":2},"stopReason":"stop","timestamp":1,"durationMs":3,"thinkingLevel":"high"}`)
	allocs := testing.AllocsPerRun(3, func() {
		if s := Parse(data); len(s.Entries) != n || len(s.Problems) != 0 {
			t.Fatalf("parsed %d entries, problems %v", len(s.Entries), s.Problems)
		}
	})
	if per := allocs / n; per > 0.1 {
		t.Errorf("%.2f allocations an entry, want at most 0.1", per)
	}
}

// TestContextAllocs: building the context of a long path costs a few
// allocations, not some for each entry (the path's loop check and each
// assistant message's model used to allocate).
func TestContextAllocs(t *testing.T) {
	const n = 2000
	s := Parse(chainFile(n, `{"role":"assistant","content":[],"provider":"p","model":"m"}`))
	allocs := testing.AllocsPerRun(3, func() {
		if c := s.Context(""); len(c.Messages) != n {
			t.Fatalf("%d messages", len(c.Messages))
		}
	})
	if allocs > 50 {
		t.Errorf("%.0f allocations for a context of %d entries, want at most 50", allocs, n)
	}
}

// TestPathAfterAppendedDuplicate: the path's step to the entry before
// holds only while ids are unique; an appended entry that repeats an id
// takes that id's links, here into a loop, as pi's last-wins index does.
func TestPathAfterAppendedDuplicate(t *testing.T) {
	a := `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"1"}}`
	b := `{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"2"}}`
	c := `{"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"3"}}`
	s := Parse([]byte(hdr + "\n" + a + "\n" + b + "\n" + c + "\n"))
	if got := ids2(s.PathTo(s.Leaf())); got != "a b c" {
		t.Fatalf("path %q, want a b c", got)
	}
	x := s.Appended([]byte(`{"type":"message","id":"b","parentId":"c","message":{"role":"user","content":"4"}}`))
	if got := ids2(s.PathTo(x)); got != "c b" {
		t.Errorf("path after a repeated id %q, want c b (c's parent is now the new b)", got)
	}
}

func ids2(path []*Entry) string {
	var out []string
	for _, e := range path {
		out = append(out, e.ID)
	}
	return strings.Join(out, " ")
}

// chainFile is a session of n message entries in one chain, each holding
// message.
func chainFile(n int, message string) []byte {
	var b strings.Builder
	b.WriteString(hdr + "\n")
	for i := range n {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"e%07d"`, i-1)
		}
		fmt.Fprintf(&b, `{"type":"message","id":"e%07d","parentId":%s,"timestamp":"2025-01-01T00:00:01.000Z",`+
			`"message":%s}`+"\n", i, parent, message)
	}
	return []byte(b.String())
}

// TestKeyWord: a key's word is its first eight bytes, little endian, the
// same from the line (wordAt, one load where it can) as from a string.
func TestKeyWord(t *testing.T) {
	line := []byte(`{"a":1,"role":2,"parentId":3,"timestamp":4,"":5}`)
	for _, k := range []string{"a", "role", "parentId", "timestamp", ""} {
		i := strings.Index(string(line), `"`+k+`"`) + 1
		if got, want := wordAt(line, i, len(k)), keyWord(k); got != want {
			t.Errorf("%q: wordAt %x, keyWord %x", k, got, want)
		}
		if got, want := keyWord([]byte(k)), keyWord(k); got != want {
			t.Errorf("%q: keyWord of bytes %x, of string %x", k, got, want)
		}
	}
	if got := keyWord("ab"); got != 0x6261 {
		t.Errorf("keyWord(ab) = %x, want 6261", got)
	}
}

// TestByIDFromManyReaders: a parsed session is read by many requests at
// once (the cache shares it); looking ids up must not write it (under
// -race, the lazily filled index of ids was a data race in CI).
func TestByIDFromManyReaders(t *testing.T) {
	var b strings.Builder
	b.WriteString(hdr + "\n")
	for i := range 50 {
		fmt.Fprintf(&b, `{"type":"message","id":"e%d","parentId":null,"message":{"role":"user","content":"x"}}`+"\n", i)
	}
	s := Parse([]byte(b.String()))
	s.Appended([]byte(`{"type":"message","id":"late","parentId":"e1","message":{"role":"user","content":"y"}}`))
	done := make(chan bool)
	for range 4 {
		go func() { done <- s.ByID("e49") != nil && s.ByID("late") != nil }()
	}
	for range 4 {
		if !<-done {
			t.Fatal("an entry was not found by its id")
		}
	}
}
