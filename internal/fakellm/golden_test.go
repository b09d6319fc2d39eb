package fakellm

import (
	"flag"
	"io"
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestStreamGolden pins the exact SSE bytes of a reply that uses every part
// (thinking, text, two tool calls, usage), as documentation of the wire
// format pi is known to accept.
func TestStreamGolden(t *testing.T) {
	b, err := io.ReadAll(answer(t, Reply{Thinking: "Think.", Text: "Running it.", Chunks: 2,
		Calls: []Call{Bash("ls"), NewCall("read", map[string]string{"path": "go.mod"})}}).Body)
	if err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`"created":\d+`).ReplaceAll(b, []byte(`"created":0`))
	const path = "testdata/stream.golden"
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(userBody))
	f.Add([]byte(`{"messages":[{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"bash","arguments":"{}"}}]},{"role":"tool","content":"x","tool_call_id":"a"}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeRequest(body, nil)
		if err != nil {
			return
		}
		r.Kind()
		r.LastUserText()
		r.ToolResults()
		r.promptTokens()
		Demo(r)
	})
}
