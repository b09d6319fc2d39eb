package web

import (
	"fmt"
	"testing"

	"piweb/internal/fakellm"
)

// testBranch: edit from here, continue from another branch with a
// summary, fork and clone, on one session.
func testBranch(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "branch base", "First reply.", fakellm.Text("Second reply."), fakellm.Text("Edited reply."))
	r.exchange(t, "second question", "Second reply.")
	oldLeaf := *r.detail(t, id).Leaf

	t.Run("edit from here", func(t *testing.T) {
		r.click(t, `.row[data-role=user]:last-of-type .edit-here, .page .row[data-role=user]:nth-last-child(2) .edit-here`)
		r.waitJS(t, `location.search !== ''`)
		r.waitJS(t, `document.querySelector('.composer textarea')?.value === 'second question'`)
		r.waitJS(t, `!document.querySelector('.conv').innerText.includes('Second reply.')`)
		r.exchange(t, "edited question", "Edited reply.")
		if n := r.countText(t, "Second reply."); n != 0 {
			t.Errorf("the abandoned branch is still shown")
		}
	})
	t.Run("continue with summary", func(t *testing.T) {
		r.open(t, "/s/"+id+"?leaf="+oldLeaf)
		r.waitText(t, "Second reply.")
		r.click(t, ".continue-bar .summarize")
		r.waitJS(t, `document.querySelector('.summary-instructions')`)
		r.click(t, ".continue-here")
		r.waitJS(t, `!document.querySelector('.continue-bar')`)
		r.waitJS(t, `document.querySelector('.conv [data-role=branchSummary]')`)
		r.waitText(t, "Second reply.")
		if n := r.countText(t, "Edited reply."); n != 0 {
			t.Errorf("the left branch is still shown")
		}
	})
	t.Run("fork", func(t *testing.T) {
		r.waitJS(t, `document.querySelectorAll('.row[data-role=user] .fork-here').length >= 2`)
		eval[bool](t, r.browser, `(() => { const b = document.querySelectorAll('.row[data-role=user] .fork-here'); b[b.length - 1].click(); return true; })()`)
		r.waitJS(t, fmt.Sprintf(`location.pathname !== '/s/%s'`, id))
		r.waitJS(t, `document.querySelector('.composer textarea')?.value === 'second question'`)
		r.waitText(t, "First reply.")
		if n := r.countText(t, "Second reply."); n != 0 {
			t.Errorf("fork shows the message it was forked at")
		}
		// The sidebar nests the fork under its session.
		fork := eval[string](t, r.browser, `decodeURIComponent(location.pathname.slice(3))`)
		r.waitJS(t, fmt.Sprintf(`document.querySelector('.sess[data-id=%q] + .nested .sess.fork[data-id=%q]')`, id, fork))
	})
	t.Run("clone", func(t *testing.T) {
		r.open(t, "/s/"+id)
		r.waitText(t, "Second reply.")
		r.click(t, ".chat-controls .act-clone")
		r.waitJS(t, fmt.Sprintf(`location.pathname.startsWith('/s/') && location.pathname !== '/s/%s'`, id))
		r.waitText(t, "Second reply.")
	})
}

// testRetrySiblings retries a user message (the same text sent again from
// its parent, a sibling branch) and switches between the two answers in
// place with < 1/2 >.
func testRetrySiblings(t *testing.T, r *chatRig) {
	id := r.startAnswered(t, "retry me", "Answer one.", fakellm.Text("Answer two."))
	r.click(t, `.row[data-role=user] .retry-here`)
	r.waitAnswer(t, "Answer two.")
	r.waitJS(t, `document.querySelector('.row[data-role=user] .sib-pos')?.textContent === '2/2' && location.search === ''`)
	if n := r.countText(t, "Answer one."); n != 0 {
		t.Errorf("the retried answer is still shown")
	}
	if got := r.llm.Requests(); got[len(got)-1].LastUserText() != "retry me" {
		t.Errorf("retry sent %q", got[len(got)-1].LastUserText())
	}
	r.click(t, `.row[data-role=user] .sib-prev`)
	r.waitText(t, "Answer one.")
	r.waitJS(t, `document.querySelector('.row[data-role=user] .sib-pos')?.textContent === '1/2' && location.search.startsWith('?leaf=')`)
	r.click(t, `.row[data-role=user] .sib-next`)
	r.waitText(t, "Answer two.")
	r.waitJS(t, `location.search === '' && document.querySelector('.row[data-role=user] .sib-pos')?.textContent === '2/2'`)
	_ = id
}
