package web

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// agentDir builds a pi agent dir with the shared fixtures (written by real
// pi 0.73.1) in per-project folders, as pi lays them out.
func agentDir(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	fixtures := pitest.FixturesDir(tb)
	var files []string
	for _, pat := range []string{"pi-0.73.1/*.jsonl", "rpc-0.73.1/sessions/*/*.jsonl"} {
		m, _ := filepath.Glob(filepath.Join(fixtures, pat))
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatalf("no fixtures under %s", fixtures)
	}
	for _, f := range files {
		data := testkit.ReadFile(tb, f)
		s := pisession.Parse(data)
		cwd, id := "/unknown", "noid"
		if s.Header != nil {
			if c, ok := s.Header.String("cwd"); ok {
				cwd = c
			}
			id, _ = s.Header.String("id")
		}
		proj := filepath.Join(dir, "sessions", pisession.EncodeCwd(cwd))
		os.MkdirAll(proj, 0o755)
		// pi names files <time>_<id>.jsonl; keep the fixture's name in
		// front so that tests can find a file by id.
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if strings.HasPrefix(filepath.Dir(f), filepath.Join(fixtures, "rpc-0.73.1")) {
			name = filepath.Base(filepath.Dir(f)) + "-" + name
		}
		if !strings.Contains(name, id) {
			name += "_" + id
		}
		name += ".jsonl"
		if err := os.WriteFile(filepath.Join(proj, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// writeBig writes a linear session of n messages (user, assistant with a
// tool call, tool result, assistant text, in turn) into agentDir and returns
// its id.
func writeBig(tb testing.TB, agentDir string, n int) string {
	tb.Helper()
	id := "01b00000-0000-7000-8000-00000000b16b"
	cwd := "/home/user/big"
	proj := filepath.Join(agentDir, "sessions", pisession.EncodeCwd(cwd))
	os.MkdirAll(proj, 0o755)
	var b strings.Builder
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%q}`+"\n", id, t0.Format(time.RFC3339Nano), cwd)
	parent := "null"
	for i := range n {
		ts := t0.Add(time.Duration(i) * time.Second)
		eid := fmt.Sprintf("%08x", i+1)
		var msg any
		switch i % 4 {
		case 0:
			msg = map[string]any{"role": "user", "content": fmt.Sprintf("Question %d: please look at **file%d.go** and explain `func f%d`.", i, i, i), "timestamp": ts.UnixMilli()}
		case 1:
			msg = map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": fmt.Sprintf("Let me read file%d.go.", i)},
				map[string]any{"type": "toolCall", "id": fmt.Sprintf("call_%d", i), "name": "read", "arguments": map[string]any{"path": fmt.Sprintf("file%d.go", i)}},
			}, "api": "openai-completions", "provider": "fake", "model": "fake-model", "usage": usage(), "stopReason": "toolUse", "timestamp": ts.UnixMilli()}
		case 2:
			msg = map[string]any{"role": "toolResult", "toolCallId": fmt.Sprintf("call_%d", i-1), "toolName": "read", "content": []any{
				map[string]any{"type": "text", "text": fmt.Sprintf("package main\n\nfunc f%d() int {\n\treturn %d\n}\n", i, i)}}, "isError": false, "timestamp": ts.UnixMilli()}
		case 3:
			msg = map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": fmt.Sprintf("`f%d` returns **%d**.\n\n- it is short\n- it is pure\n\n```go\nx := f%d()\n```", i-3, i-1, i-3)},
			}, "api": "openai-completions", "provider": "fake", "model": "fake-model", "usage": usage(), "stopReason": "stop", "timestamp": ts.UnixMilli()}
		}
		line, _ := json.Marshal(map[string]any{"type": "message", "id": eid, "parentId": json.RawMessage(parent), "timestamp": ts.Format("2006-01-02T15:04:05.000Z"), "message": msg})
		b.Write(line)
		b.WriteByte('\n')
		parent = fmt.Sprintf("%q", eid)
	}
	testkit.WriteFile(tb, filepath.Join(proj, "2026-11-01T09-00-00-000Z_"+id+".jsonl"), b.String())
	return id
}

// answer is an assistant message of one text, as model m of provider x
// writes it.
// exchanges are the messages of a chat for writeSession: texts alternate
// a user's question and the answer, timed start, start+step and on.
func exchanges(start, step int, texts ...string) []map[string]any {
	var msgs []map[string]any
	for i, text := range texts {
		ts := start + i*step
		if i%2 == 0 {
			msgs = append(msgs, map[string]any{"role": "user", "content": text, "timestamp": ts})
		} else {
			msgs = append(msgs, answer(text, ts))
		}
	}
	return msgs
}

func answer(text string, ts int) map[string]any {
	return map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}},
		"api": "x", "provider": "x", "model": "m", "usage": usage(), "stopReason": "stop", "timestamp": ts}
}

func usage() map[string]any {
	return map[string]any{"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280,
		"cost": map[string]any{"input": 0.0036, "output": 0.0012, "cacheRead": 0, "cacheWrite": 0, "total": 0.0048}}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
