package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	t.Parallel()
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
