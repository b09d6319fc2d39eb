package fakellm

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// streamResult is a stream reassembled the way pi's provider does it.
type streamResult struct {
	Text, Thinking string
	ThinkingField  string
	Calls          []Call
	Finish         string
	Usage          *Usage
	Done           bool
	Deltas         int
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// answer posts the user's message to a new fake LLM that has replies
// queued.
func answer(t *testing.T, replies ...Reply) *http.Response {
	t.Helper()
	srv := New(Options{})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	srv.Enqueue(replies...)
	return post(t, ts.URL, userBody)
}

// readStream parses SSE frames; it returns the error that cut the body short.
func readStream(t *testing.T, r io.Reader) (streamResult, error) {
	t.Helper()
	var res streamResult
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if line == "[DONE]" {
			res.Done = true
			continue
		}
		var c struct {
			Choices []struct {
				Delta        map[string]json.RawMessage `json:"delta"`
				FinishReason *string                    `json:"finish_reason"`
			} `json:"choices"`
			Usage *Usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("bad chunk %q: %v", line, err)
		}
		if c.Usage != nil {
			res.Usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				res.Finish = *ch.FinishReason
			}
			res.addDelta(t, ch.Delta)
		}
	}
	return res, sc.Err()
}

func (res *streamResult) addDelta(t *testing.T, d map[string]json.RawMessage) {
	str := func(raw json.RawMessage) string {
		var s string
		json.Unmarshal(raw, &s)
		return s
	}
	if len(d) > 0 && d["role"] == nil {
		res.Deltas++
	}
	res.Text += str(d["content"])
	for _, f := range []string{"reasoning_content", "reasoning", "reasoning_text"} {
		if s := str(d[f]); s != "" {
			res.Thinking += s
			res.ThinkingField = f
		}
	}
	var calls []toolCallDelta
	if raw := d["tool_calls"]; raw != nil {
		if err := json.Unmarshal(raw, &calls); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range calls {
		for len(res.Calls) <= c.Index {
			res.Calls = append(res.Calls, Call{})
		}
		rc := &res.Calls[c.Index]
		rc.ID += c.ID
		rc.Name += c.Function.Name
		rc.Arguments += c.Function.Arguments
	}
}

const userBody = `{"model":"fake-model","stream":true,"stream_options":{"include_usage":true},
"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"hello"}]}]}`

func TestStreamReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply Reply
		want  streamResult
	}{
		{"text", Text("Hello, world!").WithChunks(3),
			streamResult{Text: "Hello, world!", Finish: "stop", Done: true, Deltas: 3}},
		{"thinking", Think("hmm", "ok").WithChunks(1),
			streamResult{Thinking: "hmm", ThinkingField: "reasoning_content", Text: "ok", Finish: "stop", Done: true, Deltas: 2}},
		{"reasoning field", Reply{Thinking: "hm", ThinkingField: "reasoning", Text: "x", Chunks: 1},
			streamResult{Thinking: "hm", ThinkingField: "reasoning", Text: "x", Finish: "stop", Done: true, Deltas: 2}},
		{"two calls", Tools(Bash("ls"), NewCall("read", map[string]string{"path": "a.go"})).WithChunks(2),
			streamResult{Calls: []Call{
				{ID: "call_1_0", Name: "bash", Arguments: `{"command":"ls"}`},
				{ID: "call_1_1", Name: "read", Arguments: `{"path":"a.go"}`},
			}, Finish: "tool_calls", Done: true, Deltas: 6}},
		{"finish override", Reply{Text: "cut", Finish: "length"},
			streamResult{Text: "cut", Finish: "length", Done: true, Deltas: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := answer(t, tt.reply)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type = %q", ct)
			}
			got, err := readStream(t, resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if got.Usage == nil || got.Usage.PromptTokens == 0 || got.Usage.TotalTokens != got.Usage.PromptTokens+got.Usage.CompletionTokens {
				t.Errorf("usage = %+v", got.Usage)
			}
			got.Usage = nil
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNoUsageUnlessAsked(t *testing.T) {
	ts := httptest.NewServer(New(Options{}))
	defer ts.Close()
	resp := post(t, ts.URL, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	got, _ := readStream(t, resp.Body)
	if got.Usage != nil || !got.Done {
		t.Errorf("usage %+v done %v", got.Usage, got.Done)
	}
}

func TestErrorReplies(t *testing.T) {
	tests := []struct {
		name        string
		reply       Reply
		status      int
		shouldRetry string
		message     string
	}{
		{"500", Error(500, "boom"), 500, "false", "boom"},
		{"sdk retry", Reply{Status: 503, SDKRetry: true}, 503, "", "Service Unavailable"},
		{"overflow", Overflow(), 400, "false", OverflowMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := answer(t, tt.reply)
			var body struct {
				Error struct{ Message, Type string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			got := []any{resp.StatusCode, resp.Header.Get("x-should-retry"), body.Error.Message}
			want := []any{tt.status, tt.shouldRetry, tt.message}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDropCutsBody(t *testing.T) {
	resp := answer(t, Drop("abcdefgh", 2).WithChunks(4))
	got, err := readStream(t, resp.Body)
	if err == nil {
		t.Errorf("body ended cleanly, want a transport error")
	}
	if got.Text != "abcd" || got.Done {
		t.Errorf("got text %q done %v, want abcd and no [DONE]", got.Text, got.Done)
	}
}

func TestClientGoneStopsSlowStream(t *testing.T) {
	srv := New(Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	srv.Enqueue(Text(strings.Repeat("x", 100)).WithChunks(100).WithDelay(20 * time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/v1/chat/completions", strings.NewReader(userBody))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	resp.Body.Read(buf)
	start := time.Now()
	cancel()
	resp.Body.Close()
	ts.Close() // waits for the handler to return
	if d := time.Since(start); d > time.Second {
		t.Errorf("handler took %v to notice the client left", d)
	}
}

func TestNonStreaming(t *testing.T) {
	srv := New(Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	srv.Enqueue(Tools(Bash("pwd")))
	resp := post(t, ts.URL, `{"model":"fake-model","messages":[{"role":"user","content":"x"}]}`)
	var body completionBody
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	ch := body.Choices[0]
	if ch.FinishReason != "tool_calls" || ch.Message.ToolCalls[0].Function.Arguments != `{"command":"pwd"}` || body.Usage == nil {
		t.Errorf("body = %+v", body)
	}
}

func TestPickOrder(t *testing.T) {
	srv := New(Options{Rule: func(r *Request) (Reply, bool) {
		return Text("rule"), strings.Contains(r.LastUserText(), "rule")
	}})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	srv.Enqueue(Text("queued"))
	summary := `{"model":"m","stream":true,"messages":[{"role":"system","content":"` + summarySystemPrefix +
		` more"},{"role":"user","content":[{"type":"text","text":"<conversation>\n</conversation>\n\nrule"}]}]}`
	user := func(s string) string {
		return `{"model":"m","stream":true,"messages":[{"role":"user","content":"` + s + `"}]}`
	}
	var got []string
	for _, body := range []string{summary, user("rule"), user("rule"), user("other")} {
		res, _ := readStream(t, post(t, ts.URL, body).Body)
		got = append(got, res.Text[:min(len(res.Text), 14)])
	}
	want := []string{DefaultSummary[:14], "queued", "rule", "Hello! I am th"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("recorded %d requests", n)
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		system, user string
		want         Kind
	}{
		{"You are pi", "hello", KindChat},
		{summarySystemPrefix + " x", "<conversation>a</conversation>\n\nThe messages above are a conversation to summarize.", KindCompaction},
		{summarySystemPrefix, "<conversation>a</conversation>\n\n" + turnPrefixMarker, KindTurnPrefix},
		{summarySystemPrefix, "<conversation>a</conversation>\n\n" + branchMarker + ".", KindBranchSummary},
	}
	for _, tt := range tests {
		r := &Request{Messages: []Message{
			{Role: "system", Content: Content{Parts: []Part{{Type: "text", Text: tt.system}}, IsString: true}},
			{Role: "user", Content: Content{Parts: []Part{{Type: "text", Text: tt.user}}}},
		}}
		if got := r.Kind(); got != tt.want {
			t.Errorf("Kind(%q) = %v, want %v", tt.user, got, tt.want)
		}
	}
}

func TestDemo(t *testing.T) {
	tests := []struct {
		user     string
		wantCall string
		wantText string
	}{
		{"please run `echo hi` now", `{"command":"echo hi"}`, ""},
		{"Run date", `{"command":"date"}`, ""},
		{"can you list files?", `{"command":"ls -la"}`, ""},
		{"hello", "", "built-in demo model"},
	}
	for _, tt := range tests {
		r := &Request{Messages: []Message{{Role: "user", Content: Content{Parts: []Part{{Type: "text", Text: tt.user}}}}}}
		reply, ok := Demo(r)
		switch {
		case !ok:
			t.Errorf("Demo(%q) declined", tt.user)
		case tt.wantCall != "" && (len(reply.Calls) != 1 || reply.Calls[0].Arguments != tt.wantCall):
			t.Errorf("Demo(%q) calls = %+v", tt.user, reply.Calls)
		case tt.wantText != "" && !strings.Contains(reply.Text, tt.wantText):
			t.Errorf("Demo(%q) text = %q", tt.user, reply.Text)
		}
	}
}

func TestWaitRequests(t *testing.T) {
	srv := New(Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { readStream(t, post(t, ts.URL, userBody).Body) })
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := srv.WaitRequests(ctx, 3); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	last := srv.LastRequest()
	if last.LastUserText() != "hello" || last.SystemPrompt() != "sys" || !last.IncludeUsage() {
		t.Errorf("last request decoded as %+v", last)
	}
}

func TestWriteSettingsKeepsOtherKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte(`{"steeringMode":"all","defaultModel":"x"}`), 0o644)
	if err := SetupAgentDir(dir, "http://127.0.0.1:1/v1"); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &got)
	if got["steeringMode"] != "all" || got["defaultModel"] != ModelID || got["defaultProvider"] != Provider {
		t.Errorf("settings = %v", got)
	}
	var models map[string]map[string]map[string]any
	b, _ = os.ReadFile(filepath.Join(dir, "models.json"))
	if err := json.Unmarshal(b, &models); err != nil {
		t.Fatal(err)
	}
	if models["providers"][Provider]["baseUrl"] != "http://127.0.0.1:1/v1" {
		t.Errorf("models.json = %s", b)
	}
}

func TestHold(t *testing.T) {
	srv := New(Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	hold := make(chan struct{})
	srv.Enqueue(Text("abcd").WithChunks(4).WithHold(hold, 2))
	resp := post(t, ts.URL, userBody)
	br := bufio.NewReader(resp.Body)
	var seen []string
	for len(seen) < 3 { // role chunk + 2 deltas
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "data: ") {
			seen = append(seen, line)
		}
	}
	more := make(chan streamResult)
	go func() { r, _ := readStream(t, br); more <- r }()
	select {
	case <-more:
		t.Fatal("stream continued before hold was released")
	case <-time.After(50 * time.Millisecond):
	}
	close(hold)
	if r := <-more; r.Text != "cd" || !r.Done {
		t.Errorf("after release got %+v", r)
	}
}
