package server

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/errs"
	"piweb/internal/pilogin"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// signInState polls GET /api/config/signin/{provider} (it long-polls with
// after) until ok holds.
func signInState(t *testing.T, r *rig, provider string, ok func(pilogin.State) bool, what string) pilogin.State {
	t.Helper()
	var st pilogin.State
	testkit.Eventually(t, func() error {
		next, err := r.api().SignIn(t.Context(), provider, st.Seq)
		if err != nil {
			return err
		}
		if st = next; !ok(st) {
			return fmt.Errorf("state %+v", st)
		}
		return nil
	}, 60*time.Second, what)
	return st
}

// TestLiveSignIn: the Settings page's account sign-in runs real pi 1.6.0's
// `pi auth login anthropic --no-browser` on a PTY: the page gets pi's URL
// and question, the pasted code goes to pi, and pi's failure to exchange it
// (no network here) comes back in pi's words, the code masked. A second
// sign-in to the same provider is refused while one runs, and cancelling
// kills pi, as does the server's Close.
func TestLiveSignIn(t *testing.T) {
	t.Cleanup(func() { // after the rig's cleanup closed the server
		if kids := pitest.LoginPis(t); len(kids) > 0 {
			t.Errorf("pi still runs after the server closed: %v", kids)
		}
	})
	r, _ := liveRig(t)
	api, ctx := r.api(), t.Context()
	start := func(provider string, want int) {
		t.Helper()
		if _, err := api.StartSignIn(ctx, provider); want != 200 {
			wantErr(t, "sign-in to "+provider, err, want, "")
		} else if err != nil {
			t.Fatalf("sign-in to %s: %v", provider, err)
		}
	}
	answer := func(text string, want int) {
		t.Helper()
		if _, err := api.AnswerSignIn(ctx, "anthropic", text); want != 200 {
			wantErr(t, "answer "+text, err, want, "")
		} else if err != nil {
			t.Fatalf("answer: %v", err)
		}
	}
	asks := func(s pilogin.State) bool { return s.Prompt != "" }
	start("groq", 400) // API keys only
	start("anthropic", 200)
	start("anthropic", 409)
	st := signInState(t, r, "anthropic", asks, "pi's question")
	u, err := url.Parse(st.URL)
	if err != nil || u.Scheme != "https" || u.Host != "claude.ai" || u.Query().Get("state") == "" {
		t.Fatalf("url %q: %v; state %+v", st.URL, err, st)
	}
	if !strings.Contains(st.Prompt, "(code#state)") {
		t.Errorf("prompt = %q", st.Prompt)
	}
	answer("a\nb", 400)
	answer("piweb-test-code#"+u.Query().Get("state"), 200)
	st = signInState(t, r, "anthropic", func(s pilogin.State) bool { return !s.Running }, "pi's end")
	if st.Result != "failed" || !strings.HasPrefix(st.Error, "Failed to log in to Anthropic:") || !strings.Contains(st.Error, "fetch failed") {
		t.Errorf("result %v, error %q", st.Result, st.Error)
	}
	if s := toJSON(t, st); strings.Contains(s, "piweb-test-code") {
		t.Errorf("the pasted code comes back: %s", s)
	}
	answer("late", 404)

	start("anthropic", 200)
	signInState(t, r, "anthropic", asks, "pi's question again")
	if kids := pitest.LoginPis(t); len(kids) == 0 {
		t.Fatalf("no pi auth login process is running: %v", childProcesses(t))
	}
	st, err = api.CancelSignIn(ctx, "anthropic")
	if err != nil || st.Result != "cancelled" || st.Running {
		t.Errorf("after cancel: %+v, %v", st, err)
	}
	if kids := pitest.LoginPis(t); len(kids) > 0 {
		t.Errorf("pi still runs after cancel: %v", kids)
	}
	start("openai", 200) // left running for Close
	signInState(t, r, "openai", asks, "openai's question")
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
	_, err = r.api().StartSignIn(t.Context(), "anthropic")
	wantErr(t, "sign-in with pi 0.73.1", err, 503, "")
	if msg := errs.Message(err); !strings.Contains(msg, "pi 0.73.1 has no `pi auth login`") {
		t.Errorf("answer = %s", msg)
	}
	if kids := pitest.LoginPis(t); len(kids) > 0 {
		t.Errorf("a pi was started: %v", kids)
	}
}
