package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"piweb/internal/fakellm"
)

// testModelAndImages: the model switcher and thinking level change pi's
// state and the next request; then an image from the picker, one pasted
// and one dropped reach the model (fake-thinker takes images) and show in
// the session.
func testModelAndImages(t *testing.T, r *chatRig, id string) {

	t.Run("model and thinking", func(t *testing.T) {
		r.choose(t, ".model-select", fakellm.Provider+"/"+fakellm.ThinkerID)
		r.waitJS(t, `document.querySelector('.model-select').value === 'fake/fake-thinker'`)
		r.llm.Enqueue(fakellm.Text("Thinker here."))
		r.choose(t, ".thinking-select", "high")
		r.send(t, "which model now?") // at once: not refused as an outside change
		r.waitAnswer(t, "Thinker here.")
		if q := r.llm.LastRequest(); q.Model != fakellm.ThinkerID || q.ReasoningEffort != "high" {
			t.Errorf("request went to %q with reasoning_effort %q", q.Model, q.ReasoningEffort)
		}
		st := r.command(t, id, map[string]any{"type": "get_state"})
		if m, _ := st["model"].(map[string]any); m["id"] != fakellm.ThinkerID || st["thinkingLevel"] != "high" {
			t.Errorf("pi's state: model %v, thinking %v", st["model"], st["thinkingLevel"])
		}
		r.waitJS(t, `document.querySelector('.thinking-select').value === 'high'`)
	})
	t.Run("images", func(t *testing.T) {
		dir := t.TempDir()
		picked := writePNG(t, dir, "picked.png", color.RGBA{255, 0, 0, 255})
		dropped := writePNG(t, dir, "dropped.png", color.RGBA{0, 0, 255, 255})
		pasted, _ := os.ReadFile(writePNG(t, dir, "pasted.png", color.RGBA{0, 255, 0, 255}))

		r.run(t, chromedp.SetUploadFiles(`.composer input[type=file]`, []string{picked}))
		r.waitJS(t, `document.querySelectorAll('.composer-images .thumb').length === 1`)
		eval[bool](t, r.browser, fmt.Sprintf(`(() => {
			const bytes = Uint8Array.from(atob(%q), (c) => c.charCodeAt(0));
			const dt = new DataTransfer();
			dt.items.add(new File([bytes], 'pasted.png', {type: 'image/png'}));
			const ta = document.querySelector('.composer textarea');
			ta.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
			return true; })()`, base64.StdEncoding.EncodeToString(pasted)))
		r.waitJS(t, `document.querySelectorAll('.composer-images .thumb').length === 2`)
		dropFile(t, r, ".composer textarea", dropped)
		r.waitJS(t, `document.querySelectorAll('.composer-images .thumb').length === 3`)

		r.llm.Enqueue(fakellm.Text("Three images seen."))
		r.exchange(t, "what is in these images?", "Three images seen.")
		images := 0
		for _, p := range r.llm.LastRequest().LastMessage().Content.Parts {
			if p.Type == "image_url" && p.ImageURL != nil && bytes.HasPrefix([]byte(p.ImageURL.URL), []byte("data:image/png;base64,")) {
				images++
			}
		}
		if images != 3 {
			t.Errorf("the model got %d images, want 3", images)
		}
		r.waitJS(t, `(() => { const u = [...document.querySelectorAll('.row[data-role=user]')].pop(); return u && u.querySelectorAll('img.msg-img').length === 3; })()`)
		if n := eval[int](t, r.browser, `document.querySelectorAll('.composer-images .thumb').length`); n != 0 {
			t.Errorf("%d images left in the composer after sending", n)
		}
	})
}

// writePNG writes a small one-colour PNG.
func writePNG(t *testing.T, dir, name string, c color.Color) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		for y := range 8 {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// dropFile drops a file from the "desktop" on an element, as the browser
// does for a real drag from a file manager.
func dropFile(t *testing.T, r *chatRig, sel, file string) {
	t.Helper()
	pt := eval[[]float64](t, r.browser, fmt.Sprintf(`(() => { const b = document.querySelector(%q).getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()`, sel))
	data := &input.DragData{Items: []*input.DragDataItem{}, Files: []string{file}, DragOperationsMask: 1}
	for _, typ := range []input.DispatchDragEventType{input.DispatchDragEventTypeDragEnter, input.DispatchDragEventTypeDragOver, input.DispatchDragEventTypeDrop} {
		r.run(t, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, input.DispatchDragEvent, input.DispatchDragEventParams{Type: typ, X: pt[0], Y: pt[1], Data: data})
			return chromedp.Void{}, err
		})
	}
}
