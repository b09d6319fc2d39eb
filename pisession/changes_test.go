package pisession

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileChanges(t *testing.T) {
	lines := `{"type":"session","version":3,"id":"s1","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":{"path":"a.go","edits":[{"oldText":"x","newText":"y"}]}},{"type":"toolCall","id":"c2","name":"write","arguments":{"path":"/w/b.txt","content":"hi\n"}},{"type":"toolCall","id":"c3","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"c4","name":"edit","arguments":{"path":"old.go","oldText":"p","newText":"q"}}],"timestamp":5}}
{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-12-01T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":[{"type":"text","text":"ok"}],"details":{"diff":"-1 x\n+1 y"},"isError":false,"timestamp":6}}
{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-12-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"write","content":[{"type":"text","text":"no"}],"isError":true,"timestamp":7}}
`
	hi := "hi\n"
	want := []FileChange{
		{EntryID: "a1", CallID: "c1", Tool: "edit", Path: "a.go", Timestamp: 5, Edits: []TextEdit{{OldText: "x", NewText: "y"}}, Diff: "-1 x\n+1 y", Done: true},
		{EntryID: "a1", CallID: "c2", Tool: "write", Path: "/w/b.txt", Timestamp: 5, Content: &hi, Done: true, Error: true},
		{EntryID: "a1", CallID: "c4", Tool: "edit", Path: "old.go", Timestamp: 5, Edits: []TextEdit{{OldText: "p", NewText: "q"}}},
	}
	if diff := cmp.Diff(want, Parse([]byte(lines)).FileChanges()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
