package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"piweb/internal/testkit"
)

// TestLiveViewMissesNoWrite: a session page loads the session, then opens
// its event stream; whatever is written between the two must show. The
// test holds the stream's request in the browser (DevTools Fetch domain)
// while a line is appended and indexed, then lets it through. A server that
// followed the file from where it is when the stream starts would never
// send that write, and pi's answer while a chat page connects would be
// lost.
func TestLiveViewMissesNoWrite(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newRig(t)
	file := r.sessionFile(t, basicID)
	held := holdStreams(t, r.browser, "*/api/stream/subscribe*")
	r.openReady(t, "/s/"+basicID, `document.querySelector('.row')`)
	req := held.next(t)
	leaf := apiLeaf(t, r.base, basicID)
	appendMessage(t, file, "11ga0001", leaf, "written while the stream connected")
	waitFor(t, "the server to read the append", func() bool { return apiLeaf(t, r.base, basicID) == "11ga0001" })
	held.release(t, req)
	r.waitJS(t, `document.querySelector('#e-11ga0001')`)

	appendMessage(t, file, "11ga0002", "11ga0001", "written after it connected")
	r.waitJS(t, `document.querySelector('#e-11ga0002')`)
	if n := r.count(t, `#e-11ga0001`); n != 1 {
		t.Errorf("the caught-up message is shown %d times", n)
	}
}

// heldStreams pauses the browser's requests matching a pattern until
// released.
type heldStreams struct {
	b      *browser
	paused chan fetch.RequestID
}

func holdStreams(t *testing.T, b *browser, pattern string) *heldStreams {
	t.Helper()
	h := &heldStreams{b: b, paused: make(chan fetch.RequestID, 16)}
	err := chromedp.Listen(b.ctx, func(ev any) {
		if p, ok := ev.(*fetch.EventRequestPaused); ok {
			h.paused <- p.RequestID
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	b.run(t, cdpCall(fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: pattern}}}))
	return h
}

// next waits for a paused request.
func (h *heldStreams) next(t *testing.T) fetch.RequestID {
	t.Helper()
	return testkit.Recv(t, h.paused, 20*time.Second, "a paused request")
}

// release lets the request through and stops pausing others.
func (h *heldStreams) release(t *testing.T, id fetch.RequestID) {
	t.Helper()
	h.b.run(t, cdpCall(fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id}), cdpCall(fetch.Disable, cdp.Empty{}))
}

// cdpCall runs one DevTools command on the tab, ignoring its result.
func cdpCall[P, R any](cmd cdp.Command[P, R], params P) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, cmd, params)
		return chromedp.Void{}, err
	}
}

// apiLeaf is the file leaf the server reports for a session.
func apiLeaf(t testing.TB, base, id string) string {
	t.Helper()
	res, err := http.Get(base + "/api/sessions/" + id + "/context?limit=1")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct{ Leaf string }
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out.Leaf
}

// appendMessage appends a user message entry with one write, as pi does.
func appendMessage(t testing.TB, file, id, parent, text string) {
	t.Helper()
	now := time.Now().UTC()
	line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":%q,"message":{"role":"user","content":%q,"timestamp":%d}}`+"\n",
		id, parent, now.Format("2006-01-02T15:04:05.000Z"), text, now.UnixMilli())
	testkit.AppendFile(t, file, line)
}
