package web

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/fakellm"
	"piweb/internal/testkit"
)

// TestChatRetryAndCompaction: the retry banner counts down the delay pi
// asks for and Cancel ends the back-off; a compaction shows while it runs
// (manual, and automatic past the context threshold) and is stopped from
// its banner and by Stop. The fake LLM scripts summaries here, so that a
// test can hold one while the compaction runs.
func TestChatRetryAndCompaction(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newChatRigFull(t, agent.Config{}, fakellm.Options{ScriptSummaries: true})
	t.Run("retry countdown and cancel", func(t *testing.T) { testRetryCancel(t, r) })
	t.Run("compaction", func(t *testing.T) { testCompactionShownAndStopped(t, r) })
}

// testRetryCancel slows pi's retries down for one project (its own
// .pi/settings.json, which pi >= 0.79 reads only when trusted: the session
// is started with --approve), so that the back-off outlasts a look at the
// banner.
func testRetryCancel(t *testing.T, r *chatRig) {
	slow := filepath.Join(filepath.Dir(r.cwd), "slow-retry")
	settings := `{"retry": {"enabled": true, "maxRetries": 2, "baseDelayMs": 30000, "provider": {"maxRetries": 0}}}`
	testkit.WriteFile(t, filepath.Join(slow, ".pi", "settings.json"), settings)
	r.llm.Enqueue(fakellm.Text("Ready to fail."))
	id := r.create(t, apitype.CreateRequest{Cwd: slow, Message: "retry base", Approve: true})
	r.open(t, "/s/"+id)
	r.waitAnswer(t, "Ready to fail.")

	asked := len(r.llm.Requests())
	r.llm.Enqueue(fakellm.Error(500, "upstream exploded"))
	r.send(t, "please fail")
	const left = `+((document.querySelector('.retry-banner')?.innerText || '').match(/ in (\d+) s/) || [0, -1])[1]`
	r.waitJS(t, left+` > 0 && document.querySelector('.retry-banner').innerText.includes('attempt 1 of 2')`)
	first := eval[int](t, r.browser, left)
	if first < 20 || first > 30 {
		t.Errorf("the banner counts down from %d s; pi waits 30 s", first)
	}
	r.waitJS(t, left+` > 0 && `+left+` < `+strconv.Itoa(first)) // it counts
	r.click(t, ".retry-banner .btn")
	r.waitJS(t, `!document.querySelector('.retry-banner')`)
	r.waitIdle(t)
	r.waitJS(t, `[...document.querySelectorAll('.conv .stop.error')].some((e) => e.innerText.includes('upstream exploded'))`)
	if n := len(r.llm.Requests()) - asked; n != 1 {
		t.Errorf("%d requests for the prompt, want 1 (the retry was cancelled)", n)
	}
}

func testCompactionShownAndStopped(t *testing.T, r *chatRig) {
	r.llm.Enqueue(fakellm.Text("One."), fakellm.Text("Two."))
	r.startSession(t, "compaction base")
	r.waitAnswer(t, "One.")
	r.exchange(t, "second", "Two.")

	for _, how := range []string{".banner.compacting .compact-cancel", ".composer .stop"} {
		hold := make(chan struct{})
		r.llm.Enqueue(fakellm.Text(fakellm.DefaultSummary).WithHold(hold, 1))
		r.click(t, ".chat-controls .act-compact")
		r.click(t, ".compact-go")
		r.waitJS(t, `document.querySelector('.banner.compacting')`)
		// Stop only once pi asked for the summary: stopped earlier, the
		// scripted reply would answer the next prompt instead.
		testkit.Eventually(t, func() bool { return r.llm.Pending() == 0 }, 20*time.Second, "pi to ask for the summary")
		r.click(t, how)
		r.waitJS(t, `!document.querySelector('.banner.compacting')`)
		r.waitIdle(t)
		close(hold)
		r.waitJS(t, toastShown("Compaction cancelled"))
		if n := r.count(t, `.inline-error`); n != 0 {
			t.Errorf("stopped with %s, an error is shown: %s", how, eval[string](t, r.browser, `document.querySelector('.inline-error').innerText`))
		}
		if n := r.count(t, `.conv [data-role=compactionSummary]`); n != 0 {
			t.Errorf("stopped with %s, the compaction was written", how)
		}
	}
	r.expectConsole("status of 400") // the compact command's answer: aborted

	// Past the context threshold pi compacts by itself after the turn.
	hold := make(chan struct{})
	r.llm.Enqueue(fakellm.Text("Big.").WithUsage(120000, 10), fakellm.Text(fakellm.DefaultSummary).WithHold(hold, 1))
	r.send(t, "fill the context")
	r.waitJS(t, `document.querySelector('.banner.compacting')?.innerText.includes('threshold')`)
	close(hold)
	r.waitJS(t, `!document.querySelector('.banner.compacting') && document.querySelector('.conv [data-role=compactionSummary]')`)
	r.waitIdle(t)
}
