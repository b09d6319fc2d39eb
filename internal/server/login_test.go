package server

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// signInState polls GET /api/config/signin/{provider} (it long-polls with
// after) until ok holds.
func signInState(t *testing.T, r *rig, provider string, ok func(map[string]any) bool, what string) map[string]any {
	t.Helper()
	var st map[string]any
	seq := 0.0
	testkit.Eventually(t, func() bool {
		st = r.json("GET", fmt.Sprintf("/api/config/signin/%s?after=%d", provider, int64(seq)), nil, 200)
		seq, _ = st["seq"].(float64)
		return ok(st)
	}, 60*time.Second, what)
	return st
}

// piLogins lists this test process's children that lead a terminal
// session: the pis running `pi auth login` on a PTY (pi renames its
// process "pi", and agents' pis lead no session).
func piLogins(t *testing.T) []string {
	var out []string
	for _, kid := range childProcesses(t) {
		pid := strings.Fields(kid)[0]
		stat, _ := os.ReadFile("/proc/" + pid + "/stat")
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])) // state ppid pgrp session ...
		if len(f) > 3 && f[3] == pid {
			out = append(out, kid)
		}
	}
	return out
}

// TestLiveSignIn: the Settings page's account sign-in runs real pi 1.6.0's
// `pi auth login anthropic --no-browser` on a PTY: the page gets pi's URL
// and question, the pasted code goes to pi, and pi's failure to exchange it
// (no network here) comes back in pi's words, the code masked. A second
// sign-in to the same provider is refused while one runs, and cancelling
// kills pi, as does the server's Close.
func TestLiveSignIn(t *testing.T) {
	t.Cleanup(func() { // after the rig's cleanup closed the server
		if kids := piLogins(t); len(kids) > 0 {
			t.Errorf("pi still runs after the server closed: %v", kids)
		}
	})
	r, _ := liveRig(t)
	r.json("POST", "/api/config/signin/groq", map[string]any{}, 400) // API keys only
	r.json("POST", "/api/config/signin/anthropic", map[string]any{}, 200)
	r.json("POST", "/api/config/signin/anthropic", map[string]any{}, 409)
	st := signInState(t, r, "anthropic", func(s map[string]any) bool { return s["prompt"] != nil }, "pi's question")
	u, err := url.Parse(fmt.Sprint(st["url"]))
	if err != nil || u.Scheme != "https" || u.Host != "claude.ai" || u.Query().Get("state") == "" {
		t.Fatalf("url %q: %v; state %v", st["url"], err, st)
	}
	if p := fmt.Sprint(st["prompt"]); !strings.Contains(p, "(code#state)") {
		t.Errorf("prompt = %q", p)
	}
	r.json("POST", "/api/config/signin/anthropic/answer", map[string]any{"text": "a\nb"}, 400)
	code := "piweb-test-code#" + u.Query().Get("state")
	r.json("POST", "/api/config/signin/anthropic/answer", map[string]any{"text": code}, 200)
	st = signInState(t, r, "anthropic", func(s map[string]any) bool { return s["running"] == false }, "pi's end")
	msg := fmt.Sprint(st["error"])
	if st["result"] != "failed" || !strings.HasPrefix(msg, "Failed to log in to Anthropic:") || !strings.Contains(msg, "fetch failed") {
		t.Errorf("result %v, error %q", st["result"], msg)
	}
	if s := toJSON(t, st); strings.Contains(s, "piweb-test-code") {
		t.Errorf("the pasted code comes back: %s", s)
	}
	r.json("POST", "/api/config/signin/anthropic/answer", map[string]any{"text": "late"}, 404)

	r.json("POST", "/api/config/signin/anthropic", map[string]any{}, 200)
	signInState(t, r, "anthropic", func(s map[string]any) bool { return s["prompt"] != nil }, "pi's question again")
	if kids := piLogins(t); len(kids) == 0 {
		t.Fatalf("no pi auth login process is running: %v", childProcesses(t))
	}
	st = r.json("DELETE", "/api/config/signin/anthropic", map[string]any{}, 200)
	if st["result"] != "cancelled" || st["running"] != false {
		t.Errorf("after cancel: %v", st)
	}
	if kids := piLogins(t); len(kids) > 0 {
		t.Errorf("pi still runs after cancel: %v", kids)
	}
	r.json("POST", "/api/config/signin/openai", map[string]any{}, 200) // left running for Close
	signInState(t, r, "openai", func(s map[string]any) bool { return s["prompt"] != nil }, "openai's question")
}

// TestSignInNeedsAuthLogin: a pi older than `pi auth login` (real pi
// 0.73.1, which would take "auth login anthropic" for a prompt to its
// model) is never run for a sign-in: the page is told why and pointed to
// the terminal.
func TestSignInNeedsAuthLogin(t *testing.T) {
	pi, err := agent.Find(context.Background(), pitest.PiBinVersion(t, pitest.V073))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.NewService(agent.Config{Base: agent.Options{Pi: pi}, BridgeDir: filepath.Join(t.TempDir(), "bridge"), OutsidePoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Options{}, app.Config{Agent: ag})
	got := r.json("POST", "/api/config/signin/anthropic", map[string]any{}, 503)
	if msg := toJSON(t, got); !strings.Contains(msg, "pi 0.73.1 has no `pi auth login`") {
		t.Errorf("answer = %s", msg)
	}
	if kids := piLogins(t); len(kids) > 0 {
		t.Errorf("a pi was started: %v", kids)
	}
}
