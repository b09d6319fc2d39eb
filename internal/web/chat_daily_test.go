package web

import (
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/agent"
	"piweb/internal/fakellm"
	"piweb/internal/pitest"
)

// TestChatDailyDriver: issue 14's chat items on real pi 1.6.0 (the pi
// piweb follows): the pickers say what the next send uses while "Edit
// from here" is pending (14.10), a manual compaction is brought into view
// with a toast and a failed one is reported once (14.10), and images
// attached for a model without image input are warned about (14.16).
func TestChatDailyDriver(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newChatRigOn(t, pitest.V16, agent.Config{}, fakellm.Options{ScriptSummaries: true})
	t.Run("pickers while editing", func(t *testing.T) { testPickersWhileEditing(t, r) })
	t.Run("image for a text-only model", func(t *testing.T) { testImageTextOnlyModel(t, r) })
	t.Run("compaction in view", func(t *testing.T) { testCompactionInView(t, r) })
	t.Run("send while reading another branch", func(t *testing.T) { testSendOnShownBranch(t, r) })
	t.Run("back to current while editing", func(t *testing.T) { testBackFromEdit(t, r) })
	t.Run("edit the first message", func(t *testing.T) { testEditFirst(t, r) })
}

// testEditFirst: "Edit from here" on the first message starts the
// session's conversation again: the page shows nothing of the old one
// while the edit is pending, and the edited message is answered alone.
func testEditFirst(t *testing.T, r *chatRig) {
	r.startAnswered(t, "the first message", "Old first reply.")
	r.click(t, ".row[data-role=user] .edit-here")
	r.waitJS(t, `document.querySelector('.composer textarea')?.value === 'the first message'`)
	r.waitJS(t, `!document.querySelector('.conv')?.innerText.includes('Old first reply.')`)
	r.llm.Enqueue(fakellm.Text("New first reply."))
	r.exchange(t, "the edited first message", "New first reply.")
	for _, m := range r.llm.LastRequest().Messages {
		if strings.Contains(m.Content.Text(), "Old first reply.") || strings.Contains(m.Content.Text(), "the first message") && !strings.Contains(m.Content.Text(), "edited") {
			t.Errorf("the model saw the old conversation: %q", m.Content.Text())
		}
	}
	if n := r.countText(t, "Old first reply."); n != 0 {
		t.Error("the old conversation is shown after the edit was sent")
	}
}

// testBackFromEdit: "Edit from here" moves pi to the branch point; going
// "back to current" in the header and sending there goes on from the
// file's leaf the page shows, not from the branch point pi was left at.
func testBackFromEdit(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "question one", "Reply one.", fakellm.Text("Reply two."))
	r.exchange(t, "question two", "Reply two.")
	eval[bool](t, r.browser, `(() => { const b = document.querySelectorAll('.row[data-role=user] .edit-here'); b[b.length - 1].click(); return true; })()`)
	r.waitJS(t, `location.search !== '' && document.querySelector('.composer textarea')?.value === 'question two'`)
	r.click(t, ".sess-branch a")
	r.waitJS(t, `location.search === ''`)
	r.waitText(t, "Reply two.")
	r.llm.Enqueue(fakellm.Text("Reply three."))
	r.exchange(t, "question three", "Reply three.")
	if !strings.Contains(r.llm.LastRequest().Messages[len(r.llm.LastRequest().Messages)-2].Content.Text(), "Reply two.") {
		t.Errorf("the model did not see the turn before the message: %s", r.requestTexts())
	}
	r.waitText(t, "Reply two.")
	_ = id
}

// testSendOnShownBranch: a message typed while reading an earlier point
// of the session (?leaf=, as < 1/2 > and the tree open it) goes on from
// what the page shows, not from the file's leaf out of sight.
func testSendOnShownBranch(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "early question", "Early answer.", fakellm.Text("Later answer."))
	early := *r.detail(t, id).Leaf
	r.exchange(t, "later question", "Later answer.")
	r.open(t, "/s/"+id+"?leaf="+early)
	r.waitText(t, "Early answer.")
	r.waitJS(t, `!document.querySelector('.conv').innerText.includes('Later answer.')`)
	r.llm.Enqueue(fakellm.Text("Answer on the shown branch."))
	r.exchange(t, "from the early point", "Answer on the shown branch.")
	for _, m := range r.llm.LastRequest().Messages {
		if strings.Contains(m.Content.Text(), "later question") {
			t.Errorf("the model saw the branch out of sight: %q", m.Content.Text())
		}
	}
	r.waitJS(t, `location.search === '' && !document.querySelector('.conv').innerText.includes('Later answer.')`)
}

// testPickersWhileEditing: after the model and thinking level change
// later in a session, "Edit from here" on an earlier message moves pi to
// the branch point but pi keeps its model and level, which the next send
// uses: the pickers show pi's, not the branch point's.
func testPickersWhileEditing(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "first question", "Answer one.", fakellm.Text("Answer two."))
	// A new pi 1.x session's header tells its real size, not "0 B" (14.10).
	r.waitJS(t, `/ [\d.]+ (KB|B)$/.test(document.querySelector('.sess-facts .count')?.textContent || '') && !document.querySelector('.sess-facts .count').textContent.endsWith(' 0 B')`)
	r.exchange(t, "second question", "Answer two.")
	r.choose(t, ".model-select", fakellm.Provider+"/"+fakellm.ThinkerID)
	r.waitJS(t, `document.querySelector('.model-select').value === 'fake/fake-thinker'`)
	// The header's model follows the switch: the next message's first.
	r.waitJS(t, `document.querySelector('.sess-facts').textContent.includes('fake-thinker')`)
	r.choose(t, ".thinking-select", "high")
	r.waitJS(t, `document.querySelector('.thinking-select').value === 'high'`)

	// Edit the second question: pi's leaf is now "Answer one.", whose
	// branch used fake-model with thinking off.
	eval[bool](t, r.browser, `(() => { const b = document.querySelectorAll('.row[data-role=user] .edit-here'); b[b.length - 1].click(); return true; })()`)
	r.waitJS(t, `location.search !== '' && document.querySelector('.composer textarea')?.value === 'second question'`)
	r.waitJS(t, `!document.querySelector('.conv').innerText.includes('Answer two.')`)
	r.waitJS(t, `document.querySelector('.model-select').value === 'fake/fake-thinker' && document.querySelector('.thinking-select').value === 'high'`)
	phoneFits(t, r.browser, "the composer and pickers while editing")
	// A change while editing goes to pi and shows at once; the send uses it.
	r.choose(t, ".thinking-select", "low")
	r.waitJS(t, `document.querySelector('.thinking-select').value === 'low'`)
	r.llm.Enqueue(fakellm.Text("Edited answer."))
	r.exchange(t, "edited question", "Edited answer.")
	if q := r.llm.LastRequest(); q.Model != fakellm.ThinkerID || q.ReasoningEffort != "low" {
		t.Errorf("the edited send went to %q with reasoning_effort %q, want what the pickers showed", q.Model, q.ReasoningEffort)
	}
	r.waitJS(t, `location.search === '' && document.querySelector('.model-select').value === 'fake/fake-thinker' && document.querySelector('.thinking-select').value === 'low'`)
	_ = id
}

// testImageTextOnlyModel: an image attached while the model takes only
// text is warned about in the composer (pi 1.6 keeps it in the session
// and sends the model a placeholder instead); with a model that takes
// images, no warning.
func testImageTextOnlyModel(t *testing.T, r *chatRig) {
	r.startAnswered(t, "no images please", "Text only here.")
	r.waitJS(t, `document.querySelector('.model-select').value === 'fake/fake-model'`)
	img := writePNG(t, t.TempDir(), "red.png", color.RGBA{255, 0, 0, 255})
	attach := func() {
		r.run(t, chromedp.SetUploadFiles(`.composer input[type=file]`, []string{img}))
		r.waitJS(t, `document.querySelectorAll('.composer-images .thumb').length === 1`)
	}
	attach()
	r.waitJS(t, `document.querySelector('.image-warn')?.innerText.includes('does not take images')`)
	phoneFits(t, r.browser, "the image warning")
	r.click(t, ".image-warn .image-drop")
	r.waitJS(t, `!document.querySelector('.composer-images') && !document.querySelector('.image-warn')`)

	// Sent all the same: the model gets pi's placeholder, the session the image.
	attach()
	r.llm.Enqueue(fakellm.Text("I cannot see it."))
	r.exchange(t, "what colour is this?", "I cannot see it.")
	var parts []string
	for _, p := range r.llm.LastRequest().LastMessage().Content.Parts {
		parts = append(parts, p.Type+":"+p.Text)
	}
	if got := strings.Join(parts, "|"); !strings.Contains(got, "image omitted") || strings.Contains(got, "image_url") {
		t.Errorf("the text-only model got %q, want pi's placeholder and no image", got)
	}
	r.waitJS(t, `[...document.querySelectorAll('.row[data-role=user]')].pop()?.querySelectorAll('img.msg-img').length === 1`)

	r.choose(t, ".model-select", fakellm.Provider+"/"+fakellm.ThinkerID)
	r.waitJS(t, `document.querySelector('.model-select').value === 'fake/fake-thinker'`)
	attach()
	r.waitJS(t, `document.querySelectorAll('.composer-images .thumb').length === 1 && !document.querySelector('.image-warn')`)
	r.click(t, ".composer-images .x")
}

// testCompactionInView: a manual compaction's card is at the top of the
// context, far above a long last answer; the page scrolls it into view
// and says what happened. A failed compaction reads "Compaction failed:"
// once, in one message.
func testCompactionInView(t *testing.T, r *chatRig) {
	r.llm.Reset()
	long := strings.Repeat("A long paragraph of the answer that fills the screen. ", 12)
	long = strings.TrimSpace(strings.Repeat(long+"\n\n", 30))
	r.llm.Enqueue(fakellm.Text("Short one."), fakellm.Text(long))
	r.startSession(t, "compaction view base")
	r.waitAnswer(t, "Short one.")
	r.exchange(t, "tell me a lot", "A long paragraph")

	r.llm.Enqueue(fakellm.Error(400, "summary exploded"))
	r.click(t, ".chat-controls .act-compact")
	r.click(t, ".compact-go")
	r.waitJS(t, `[...document.querySelectorAll('.inline-error')].some((e) => e.innerText.includes('summary exploded'))`)
	errs := eval[string](t, r.browser, `[...document.querySelectorAll('.inline-error')].map((e) => e.innerText).join('\n')`)
	if n := strings.Count(errs, "Compaction failed"); n != 1 || strings.Count(errs, "summary exploded") != 1 {
		t.Errorf("a failed compaction reads %q; want one \"Compaction failed: ...\"", errs)
	}
	r.expectConsole("status of")
	eval[bool](t, r.browser, `([...document.querySelectorAll('.inline-error .x')].forEach((b) => b.click()), true)`)

	r.llm.Enqueue(fakellm.Text(fakellm.DefaultSummary))
	r.click(t, ".chat-controls .act-compact")
	r.click(t, ".compact-go")
	r.waitJS(t, toastShown("Compacted:"))
	r.waitJS(t, `document.querySelector('.conv .card.compaction')`)
	inView := `(() => { const c = document.querySelector('.conv').getBoundingClientRect(), k = document.querySelector('.conv .card.compaction').getBoundingClientRect();
		return k.top >= c.top - 1 && k.top < c.bottom && k.bottom > c.top; })()`
	r.waitJS(t, inView)
	if h := eval[float64](t, r.browser, `document.querySelector('.conv').scrollHeight - document.querySelector('.conv').clientHeight`); h < 200 {
		t.Errorf("the conversation scrolls only %.0f px: the test proves nothing", h)
	}
}

// phoneFits checks at 390 px (issue 14's phone), light and dark, that
// nothing sticks out sideways, and goes back to the desktop size.
func phoneFits(t *testing.T, b *browser, what string) {
	t.Helper()
	for _, scheme := range []string{"light", "dark"} {
		b.run(t, chromedp.EmulateViewport(390, 844), emulateScheme(scheme), chromedp.Sleep(200*time.Millisecond))
		if w := eval[int](t, b, `document.documentElement.scrollWidth - innerWidth`); w > 0 {
			t.Errorf("%s at 390 px: the page is %d px wider than the window", what, w)
		}
		fitsPhone(t, b, what+" ("+scheme+")")
	}
	b.run(t, chromedp.EmulateViewport(1280, 800), emulateScheme("light"))
}
