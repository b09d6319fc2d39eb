package server

import (
	"fmt"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/app"
	"piweb/internal/fakellm"
	"piweb/internal/push"
	"piweb/internal/push/pushtest"
	"piweb/internal/testkit"
)

// TestLivePush: a browser subscribes through the API; a run of real pi
// that ends with no tab open is pushed to its (local, fake) push service,
// signed with piweb's VAPID key and encrypted for that browser.
func TestLivePush(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	p, err := push.Open(t.TempDir(), push.Options{Log: testkit.Log(t), AllowLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	r, llm := liveRigOpts(t, fakellm.Options{}, nil, app.Config{Push: p})
	api, ctx := r.api(), t.Context()
	pk, err := api.PushKey(ctx)
	key := pk.PublicKey
	if k, _ := p.PublicKey(); err != nil || key != k || key == "" {
		t.Fatalf("public key %q, %v", key, err)
	}
	sub := pushtest.NewSubscriber(t)
	svc := pushtest.New(t, key, sub)
	if err := api.PushSubscribe(ctx, sub.Subscription(svc.URL+"/sub/1")); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "an ftp endpoint", api.PushSubscribe(ctx, push.Subscription{Endpoint: "ftp://x"}), 400, "")

	llm.Enqueue(fakellm.Text("Pushed."))
	id := create(t, api, agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "push me"})
	testkit.Eventually(t, func() error {
		for _, m := range svc.Messages(t) {
			if m.Title == "pi finished" && m.URL == "/s/"+id {
				return nil
			}
		}
		return fmt.Errorf("pushed so far: %+v", svc.Messages(t))
	}, 60*time.Second, "the push of the finished run")

	// Muted (from any device), a run pushes nothing; unmuted again, the
	// next one does. The push's body is the session's name, so each run
	// is renamed first to tell its push.
	prompt := func(name string) {
		if _, err := api.Rename(ctx, id, name); err != nil {
			t.Fatal(err)
		}
		n := r.detail(id).Session.MessageCount
		llm.Enqueue(fakellm.Text("Done."))
		r.command(id, map[string]any{"type": "prompt", "message": name}, 200)
		testkit.Eventually(t, func() error {
			if it := r.detail(id).Session; it.MessageCount < n+2 || it.Running || it.Name == nil || *it.Name != name {
				return fmt.Errorf("session %+v", it)
			}
			return nil
		}, 60*time.Second, "the end of the run")
	}
	mute := func(muted bool) {
		if _, err := api.Mute(ctx, id, muted); err != nil {
			t.Fatal(err)
		}
	}
	pushedFor := func(name string) bool {
		for _, m := range svc.Messages(t) {
			if m.Title == "pi finished" && m.Body == name {
				return true
			}
		}
		return false
	}
	mute(true)
	prompt("quiet run")
	mute(false)
	prompt("loud run")
	testkit.Eventually(t, func() error {
		if !pushedFor("loud run") {
			return fmt.Errorf("pushed so far: %+v", svc.Messages(t))
		}
		return nil
	}, 60*time.Second, "the unmuted run's push")
	t.Logf("messages %+v", svc.Messages(t))
	if pushedFor("quiet run") {
		t.Error("the muted run was pushed")
	}

	if err := api.PushUnsubscribe(ctx, svc.URL+"/sub/1"); err != nil {
		t.Fatal(err)
	}
	if n := p.Count(); n != 0 {
		t.Errorf("%d subscriptions after unsubscribing", n)
	}
}

// testPush is a push service over a temporary config dir.
func testPush(t *testing.T) *push.Service {
	p, err := push.Open(t.TempDir(), push.Options{Log: testkit.Log(t), AllowLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLiveAutoName: a session started through piweb is named from its
// first message when its first run ends (through pi), and renamable.
func TestLiveAutoName(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRig(t)
	llm.Enqueue(fakellm.Text("Will do."))
	api := r.api()
	id := create(t, api, agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "fix the flaky parser test\nin detail"})
	r.waitName(id, "fix the flaky parser test", 30*time.Second)
	if _, err := api.Rename(t.Context(), id, "mine"); err != nil {
		t.Fatal(err)
	}
	r.waitName(id, "mine", 10*time.Second)
}

// TestLiveModelTitle: with model titles on, a new session is named by its
// first line at once, then by the title pi's default model writes (quotes
// and a full stop removed), through real pi.
func TestLiveModelTitle(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	r, llm := liveRigOpts(t, fakellm.Options{}, nil, app.Config{ModelTitles: true})
	llm.Enqueue(fakellm.Text("Will do."))
	llm.Enqueue(fakellm.Text("\"Flaky parser test fix.\""))
	id := create(t, r.api(), agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "the parser test fails now and then, please look"})
	r.waitName(id, "Flaky parser test fix", 60*time.Second)
}
