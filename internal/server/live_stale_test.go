package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// TestLiveOutsideWriteThenCurrentLeaf is issue 14.1 through the API: after
// another process appends to a session pi has open, a prompt on an older
// leaf is refused (409), and once the page shows the file as it is, a
// prompt on that leaf is accepted and pi answers with the outside entry in
// its context. Then issue 14.2: "continue from here" with a summary of the
// branch left behind leaves the session usable (pi's own summary is not an
// outside write).
func TestLiveOutsideWriteThenCurrentLeaf(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	s := startSettled(t, fakellm.Options{ScriptSummaries: true})
	r, llm, id, ch := s.r, s.llm, s.id, s.ch
	leafOf := func() string { return r.leaf(id) }
	old := leafOf()
	s.appendOutside(t, old)

	cmd := func(leaf string, want int) {
		t.Helper()
		r.command(id, map[string]any{"type": "prompt", "message": "go on", "expectLeaf": leaf}, want)
	}
	cmd(old, 409)
	llm.Enqueue(fakellm.Text("Second answer."))
	cmd("0badcafe", 200)
	waitEvent(t, ch, "agent_end")
	if req := llm.LastRequest(); !strings.Contains(fmt.Sprint(req.Messages), "typed in a terminal") {
		t.Error("pi did not get the outside entry in its context")
	}

	// 14.2: continue from the first answer, summarizing the branch left.
	nav := r.command(id, map[string]any{"type": "navigate", "entryId": old, "summarize": true}, 200)
	var data struct{ Leaf string }
	json.Unmarshal(nav.Data, &data)
	leaf := data.Leaf
	testkit.Eventually(t, func() bool { return leafOf() == leaf }, time.Minute, "the branch summary in the listing")
	llm.Enqueue(fakellm.Text("Third answer."))
	cmd(leaf, 200)
	for {
		ev := next(t, ch)
		if ev.data["type"] == "piweb_outside_change" {
			t.Error("pi's own branch summary was announced as an outside change")
		}
		if ev.data["type"] == "agent_end" {
			break
		}
	}
}

// TestLiveOutsideWriteThenRetry: Retry and Edit from here (navigate to a
// user message, then prompt) send the leaf the page shows, as a prompt
// does: after another process appended to the session, a page that shows
// the file as it is retries and is answered, and one still showing an
// older leaf is refused (409) before pi moves.
func TestLiveOutsideWriteThenRetry(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	s := startSettled(t, fakellm.Options{})
	old := *s.d.Leaf
	first := firstUser(s.d)
	s.appendOutside(t, old)
	s.r.command(s.id, map[string]any{"type": "navigate", "entryId": first, "expectLeaf": old}, 409)
	// The page shows the file as it is: pi adopts the outside entry and
	// moves, and the retried prompt is not refused.
	s.r.command(s.id, map[string]any{"type": "navigate", "entryId": first, "expectLeaf": "0badcafe"}, 200)
	s.llm.Enqueue(fakellm.Text("Retried answer."))
	s.r.command(s.id, map[string]any{"type": "prompt", "message": "first"}, 200)
	waitEvent(t, s.ch, "agent_end")
}

// TestLiveBehindOwnWrites: a page whose leaf is behind the file only by
// lines its session's pi wrote (here a model change, which pi appends at
// once) is not refused as stale: those lines are on their way
// to it and nothing foreign came. The page of TestChatDailyDriver clicked
// "Edit from here" in that moment and got a 409.
func TestLiveBehindOwnWrites(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	s := startSettled(t, fakellm.Options{})
	old := *s.d.Leaf
	first := firstUser(s.d)
	s.r.command(s.id, map[string]any{"type": "set_model", "provider": fakellm.Provider, "modelId": fakellm.ThinkerID}, 200)
	testkit.Eventually(t, func() bool { return s.r.leaf(s.id) != old }, time.Minute, "pi's model change in the file")
	s.r.command(s.id, map[string]any{"type": "navigate", "entryId": first, "expectLeaf": old}, 200)
	s.r.command(s.id, map[string]any{"type": "navigate", "entryId": first, "expectLeaf": "0badcafe"}, 409)
}

// settledRun is a live rig's session after its first run (the message
// "first", answered "First answer."), settled, with its event stream.
type settledRun struct {
	r   *rig
	llm *fakellm.Server
	id  string
	ch  <-chan sseEvent
	d   apitype.SessionDetail // the session's answer once settled
}

// startSettled starts a session on a live rig whose model takes o, follows
// its events and waits until its first run is over and named.
func startSettled(t *testing.T, o fakellm.Options) settledRun {
	r, llm := liveRigLLM(t, o)
	llm.Enqueue(fakellm.Text("First answer."))
	id := create(t, r.api(), agent.CreateRequest{Cwd: r.d.Projects + "/notes", Message: "first"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	ch := listen(t)(r.api().SessionEvents(ctx, id, "0"))
	waitEvent(t, ch, "agent_end")
	return settledRun{r: r, llm: llm, id: id, ch: ch, d: settledSession(t, r, id)}
}

// appendOutside appends, as another process would, a user message with id
// 0badcafe under parent, and waits for the listing to show it as the leaf.
func (s settledRun) appendOutside(t *testing.T, parent string) {
	t.Helper()
	path := s.d.Session.Path
	line := fmt.Sprintf(`{"type":"message","id":"0badcafe","parentId":%q,"timestamp":"2026-12-03T10:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"typed in a terminal"}],"timestamp":1796292000000}}`+"\n", parent)
	testkit.AppendFile(t, path, line)
	testkit.Eventually(t, func() bool { return s.r.leaf(s.id) == "0badcafe" }, time.Minute, "the outside entry in the listing")
}

// settledSession waits until session id is listed with its first run's
// lines all written, its automatic name included (piweb names a session
// when its first run ends, and pi appends the name), and returns it.
func settledSession(t *testing.T, r *rig, id string) apitype.SessionDetail {
	t.Helper()
	var d apitype.SessionDetail
	testkit.Eventually(t, func() bool {
		var err error
		d, err = r.api().Session(t.Context(), id)
		return err == nil && d.Session.Name != nil && *d.Session.Name != "" && d.Leaf != nil
	}, time.Minute, "the session listed and named")
	return d
}

// firstUser is the id of the first user message in a session answer.
func firstUser(d apitype.SessionDetail) string {
	if ids := userIDs(d); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// userIDs are the ids of a session answer's user messages, in tree order.
func userIDs(d apitype.SessionDetail) []string {
	var ids []string
	for _, n := range d.Tree {
		if n.Role == "user" {
			ids = append(ids, n.ID)
		}
	}
	return ids
}
