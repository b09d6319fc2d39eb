package server

import (
	"fmt"
	"testing"
	"time"

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
	p, err := push.Open(t.TempDir(), push.Options{Log: testkit.Log(t), AllowLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	r, llm := liveRigOpts(t, fakellm.Options{}, nil, app.Config{Push: p})
	key, _ := r.json("GET", "/api/push/key", nil, 200)["publicKey"].(string)
	if k, _ := p.PublicKey(); key != k || key == "" {
		t.Fatalf("public key %q", key)
	}
	sub := pushtest.NewSubscriber(t)
	svc := pushtest.New(t, key, sub)
	r.json("POST", "/api/push/subscribe", sub.Subscription(svc.URL+"/sub/1"), 200)
	r.json("POST", "/api/push/subscribe", map[string]any{"endpoint": "ftp://x"}, 400)

	llm.Enqueue(fakellm.Text("Pushed."))
	id := r.json("POST", "/api/sessions", map[string]any{"cwd": r.d.Projects + "/notes", "message": "push me"}, 200)["id"].(string)
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
		r.json("POST", "/api/sessions/"+id+"/rename", map[string]any{"name": name}, 200)
		item := func() map[string]any { return r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any) }
		n := item()["messageCount"].(float64)
		llm.Enqueue(fakellm.Text("Done."))
		r.json("POST", "/api/sessions/"+id+"/commands", map[string]any{"type": "prompt", "message": name}, 200)
		testkit.Eventually(t, func() error {
			if it := item(); it["messageCount"].(float64) < n+2 || it["running"] == true || it["name"] != name {
				return fmt.Errorf("session %v", it)
			}
			return nil
		}, 60*time.Second, "the end of the run")
	}
	pushedFor := func(name string) bool {
		for _, m := range svc.Messages(t) {
			if m.Title == "pi finished" && m.Body == name {
				return true
			}
		}
		return false
	}
	r.json("POST", "/api/attention/mute", map[string]any{"id": id, "muted": true}, 200)
	prompt("quiet run")
	r.json("POST", "/api/attention/mute", map[string]any{"id": id, "muted": false}, 200)
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

	r.json("POST", "/api/push/unsubscribe", map[string]any{"endpoint": svc.URL + "/sub/1"}, 200)
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
	r, llm := liveRig(t)
	llm.Enqueue(fakellm.Text("Will do."))
	id := r.json("POST", "/api/sessions", map[string]any{"cwd": r.d.Projects + "/notes", "message": "fix the flaky parser test\nin detail"}, 200)["id"].(string)
	name := func() string {
		s, _ := r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any)
		n, _ := s["name"].(string)
		return n
	}
	testkit.Eventually(t, func() error {
		if n := name(); n != "fix the flaky parser test" {
			return fmt.Errorf("name %q", n)
		}
		return nil
	}, 30*time.Second, "the session's name")
	r.json("POST", "/api/sessions/"+id+"/rename", map[string]any{"name": "mine"}, 200)
	testkit.Eventually(t, func() error {
		if n := name(); n != "mine" {
			return fmt.Errorf("name %q", n)
		}
		return nil
	}, 10*time.Second, "the new name")
}

// TestLiveModelTitle: with model titles on, a new session is named by its
// first line at once, then by the title pi's default model writes (quotes
// and a full stop removed), through real pi.
func TestLiveModelTitle(t *testing.T) {
	r, llm := liveRigOpts(t, fakellm.Options{}, nil, app.Config{ModelTitles: true})
	llm.Enqueue(fakellm.Text("Will do."))
	llm.Enqueue(fakellm.Text("\"Flaky parser test fix.\""))
	id := r.json("POST", "/api/sessions", map[string]any{"cwd": r.d.Projects + "/notes", "message": "the parser test fails now and then, please look"}, 200)["id"].(string)
	testkit.Eventually(t, func() error {
		s, _ := r.json("GET", "/api/sessions/"+id, nil, 200)["session"].(map[string]any)
		if n, _ := s["name"].(string); n != "Flaky parser test fix" {
			return fmt.Errorf("name %q", n)
		}
		return nil
	}, 60*time.Second, "the model's title")
}
