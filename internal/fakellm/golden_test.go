package fakellm

import (
	"io"
	"regexp"
	"testing"

	"piweb/internal/testkit"
)

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
	testkit.Golden(t, "testdata/stream.golden", string(got))
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
