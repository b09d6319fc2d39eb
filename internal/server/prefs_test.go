package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/fakellm"
	"piweb/internal/own"
)

// TestModelTitleSwitch, through real pi: model titles are off by
// default, so a new session keeps its first-line name; the Settings
// switch (PUT /api/prefs, kept in piweb's prefs.json, not pi's settings)
// turns them on for the next session, whose name becomes the model's
// title. The first session's name is checked again at the end: had it
// asked for a title, it would have taken the second session's replies.
func TestModelTitleSwitch(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	dir := t.TempDir()
	ps, err := own.OpenPrefs(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, llm := liveRigOpts(t, fakellm.Options{}, nil, app.Config{Prefs: ps})
	api, ctx := r.api(), t.Context()
	if got, err := api.Prefs(ctx); err != nil || got.ModelTitles || got.ModelTitlesForced {
		t.Fatalf("defaults: %+v, %v", got, err)
	}
	llm.Enqueue(fakellm.Text("Will do."))
	first := create(t, api, agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "tidy the notes folder please"})
	r.waitName(first, "tidy the notes folder please", 60*time.Second)

	on := true
	if got, err := api.PutPrefs(ctx, apitype.PrefsChange{ModelTitles: &on}); err != nil || !got.ModelTitles {
		t.Fatalf("after the switch: %+v, %v", got, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "prefs.json")); !strings.Contains(string(b), `"modelTitles": true`) {
		t.Fatalf("prefs.json = %s", b)
	}
	llm.Enqueue(fakellm.Text("On it."))
	llm.Enqueue(fakellm.Text("Parser test fix."))
	second := create(t, api, agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "the parser test fails now and then"})
	r.waitName(second, "Parser test fix", 60*time.Second)
	if n := r.name(first); n != "tidy the notes folder please" {
		t.Errorf("the first session, started with titles off, is now %q", n)
	}
}

// TestPrefsForced: serve's --model-titles forces titles on, and GET
// /api/prefs says so beside the switch's own value.
func TestPrefsForced(t *testing.T) {
	s := newServer(t, Options{}, app.Config{AgentDir: t.TempDir(), ModelTitles: true})
	if v := s.prefsView(); !v.ModelTitlesForced || v.ModelTitles || !s.app.ModelTitlesOn() {
		t.Errorf("forced: %+v, on %v", v, s.app.ModelTitlesOn())
	}
}
