package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/jsjson"
	"piweb/internal/pitest"
)

// readStdout reads what pi wrote on stdout in a transcript of real pi
// (pitest's fixtures): "1.6.0/<scenario>" or "0.73.1/<scenario>".
func readStdout(t *testing.T, name string) []Event {
	t.Helper()
	version, scenario, _ := strings.Cut(name, "/")
	dir := filepath.Join(pitest.FixturesDir(t), "rpc-"+version, "transcripts")
	path := filepath.Join(dir, scenario, "stdout.jsonl")
	if version == "0.73.1" {
		path = filepath.Join(dir, scenario+".jsonl") // {"dir":"out","msg":...} records
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		if version == "0.73.1" {
			if fieldString(line, "dir") != "out" {
				continue
			}
			line = jsjson.FirstField(line, "msg")
		}
		evs = append(evs, Event{Type: fieldString(line, "type"), Raw: line})
	}
	return evs
}

// TestNormalizeUpdate checks that every message_update of both pi versions
// comes out in pi 1.x's delta-only shape: no cumulative message, no
// partial, and a toolcall_start naming its call.
func TestNormalizeUpdate(t *testing.T) {
	for _, name := range []string{"0.73.1/s02_model_thinking", "0.73.1/s10_roundtrips", "1.6.0/main"} {
		t.Run(name, func(t *testing.T) {
			n := 0
			for _, e := range readStdout(t, name) {
				if e.Type != EvMessageUpdate {
					continue
				}
				n++
				var got struct {
					Type    string
					Message json.RawMessage
					Usage   json.RawMessage
					AME     map[string]json.RawMessage `json:"assistantMessageEvent"`
				}
				out := normalizeUpdate(e.Raw)
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatalf("%v in %s", err, out)
				}
				if got.Type != EvMessageUpdate || got.Message != nil || got.AME["partial"] != nil || got.Usage == nil {
					t.Fatalf("not delta-only: %.300s", out)
				}
				if string(got.AME["type"]) == `"toolcall_start"` && (got.AME["id"] == nil || got.AME["toolName"] == nil) {
					t.Errorf("toolcall_start without id or toolName: %s", out)
				}
			}
			if n == 0 {
				t.Fatal("no message_update in the transcript")
			}
		})
	}
}

// TestAssembler rebuilds each streamed assistant message from the events
// and compares its content, just before message_end, with the message pi
// ends it with (the oracle).
func TestAssembler(t *testing.T) {
	for _, name := range []string{"0.73.1/s02_model_thinking", "0.73.1/s10_roundtrips", "1.6.0/main", "1.6.0/compact"} {
		t.Run(name, func(t *testing.T) {
			var a assembler
			checked := 0
			for _, e := range readStdout(t, name) {
				if e.Type == EvMessageUpdate {
					e.Raw = normalizeUpdate(e.Raw)
				}
				if e.Type == EvMessageEnd && fieldString(e.Field("message"), "role") == "assistant" {
					compareContent(t, a.snapshot(), e.Field("message"))
					checked++
				}
				a.apply(e)
				if e.Type == EvMessageEnd && a.snapshot() != nil {
					t.Fatal("a message still streams after message_end")
				}
			}
			if checked == 0 {
				t.Fatal("no assistant message in the transcript")
			}
		})
	}
}

func compareContent(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w struct {
		Role    string
		Content []map[string]any
	}
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("snapshot %s: %v", got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.Content { // fields pi 0.73 keeps only while streaming or adds at the end
		delete(c, "partialArgs")
		delete(c, "streamIndex")
		delete(c, "textSignature")
		delete(c, "thinkingSignature")
	}
	for _, c := range g.Content {
		delete(c, "partialArgs")
		delete(c, "streamIndex")
	}
	if diff := cmp.Diff(w.Content, g.Content); diff != "" || g.Role != "assistant" {
		t.Errorf("assembled content differs from message_end's (-pi +assembled):\n%s", diff)
	}
}

// TestAssemblerMidStream checks a snapshot taken mid-message.
func TestAssemblerMidStream(t *testing.T) {
	var a assembler
	for _, line := range []string{
		`{"type":"message_start","message":{"role":"assistant","content":[],"model":"m","stopReason":"pending"}}`,
		`{"type":"message_update","usage":{"output":1},"assistantMessageEvent":{"type":"thinking_start","contentIndex":0}}`,
		`{"type":"message_update","usage":{"output":2},"assistantMessageEvent":{"type":"thinking_delta","contentIndex":0,"delta":"hm"}}`,
		`{"type":"message_update","usage":{"output":3},"assistantMessageEvent":{"type":"thinking_end","contentIndex":0,"content":"hmm"}}`,
		`{"type":"message_update","usage":{"output":4},"assistantMessageEvent":{"type":"text_start","contentIndex":1}}`,
		`{"type":"message_update","usage":{"output":5},"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"Hel"}}`,
		`{"type":"message_update","usage":{"output":6},"assistantMessageEvent":{"type":"text_delta","contentIndex":1,"delta":"lo"}}`,
		`{"type":"message_update","usage":{"output":7},"assistantMessageEvent":{"type":"toolcall_start","contentIndex":2,"id":"c1","toolName":"bash"}}`,
		`{"type":"message_update","usage":{"output":8},"assistantMessageEvent":{"type":"toolcall_delta","contentIndex":2,"delta":"{\"co"}}`,
	} {
		b := []byte(line)
		a.apply(Event{Type: fieldString(b, "type"), Raw: b})
	}
	var got any
	if err := json.Unmarshal(a.snapshot(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"role": "assistant", "model": "m", "stopReason": "pending", "usage": map[string]any{"output": 8.0},
		"content": []any{
			map[string]any{"type": "thinking", "thinking": "hmm"},
			map[string]any{"type": "text", "text": "Hello"},
			map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{}, "partialArgs": `{"co`},
		}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}
