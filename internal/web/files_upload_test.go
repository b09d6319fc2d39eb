package web

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"piweb/internal/testkit"
)

// minimalPDF is a one-page PDF.
const minimalPDF = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj " +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"

// TestFilesUploadAndPreview: a picked image and PDF are uploaded into the
// session's folder and previewed (the image drawn, the PDF in a frame);
// the same name again asks before replacing; a path in a tool call opens
// the file in the panel, a Markdown file rendered.
func TestFilesUploadAndPreview(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newWorkspaceRig(t)
	src := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for x := range 40 {
		img.Set(x, x%30, color.RGBA{200, 30, 30, 255})
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	os.WriteFile(filepath.Join(src, "dot.png"), buf.Bytes(), 0o644)
	os.WriteFile(filepath.Join(src, "paper.pdf"), []byte(minimalPDF), 0o644)
	os.WriteFile(filepath.Join(r.cwd, "notes.md"), []byte("# Notes\n\nSome *text*.\n"), 0o644)

	r.open(t, "/s/"+r.id)
	r.click(t, `.sess-actions button[title^="Files"]`)
	r.waitJS(t, `document.querySelector('.files-panel .upload-btn input[type=file]')`)
	r.run(t, chromedp.SetUploadFiles(`.files-panel input[type=file]`, []string{filepath.Join(src, "dot.png")}))
	r.waitJS(t, `document.querySelector('.viewer img.file-img')?.naturalWidth === 40`)
	if b, err := os.ReadFile(filepath.Join(r.cwd, "dot.png")); err != nil || !bytes.Equal(b, buf.Bytes()) {
		t.Fatalf("uploaded image on disk: %v", err)
	}

	r.run(t, chromedp.SetUploadFiles(`.files-panel input[type=file]`, []string{filepath.Join(src, "paper.pdf")}))
	r.waitJS(t, `document.querySelector('.viewer iframe.file-pdf')?.getAttribute('src').includes('paper.pdf')`)
	if b, _ := os.ReadFile(filepath.Join(r.cwd, "paper.pdf")); string(b) != minimalPDF {
		t.Fatal("uploaded PDF differs on disk")
	}
	r.screenshot(t, "files-pdf")

	// The same name again: asked first, replaced on confirmation.
	os.WriteFile(filepath.Join(src, "dot.png"), []byte("not an image any more"), 0o644)
	r.run(t, chromedp.SetUploadFiles(`.files-panel input[type=file]`, []string{filepath.Join(src, "dot.png")}))
	r.waitJS(t, `document.querySelector('.dialog.confirm')?.innerText.includes('Replace dot.png')`)
	if b, _ := os.ReadFile(filepath.Join(r.cwd, "dot.png")); !bytes.Equal(b, buf.Bytes()) {
		t.Fatal("the file was replaced before the user confirmed")
	}
	r.click(t, `.dialog.confirm .btn.primary`)
	testkit.Eventually(t, func() bool {
		b, _ := os.ReadFile(filepath.Join(r.cwd, "dot.png"))
		return string(b) == "not an image any more"
	}, 10*time.Second, "the confirmed upload to replace the file")
	r.waitJS(t, `window.testToasts.filter((t) => t.textContent.includes('Uploaded dot.png')).length === 2`) // the page has the answer

	// A path in a tool call opens the file.
	r.click(t, `.tool summary a.path`)
	r.waitJS(t, `document.querySelector('.viewer .viewer-head .path')?.innerText === 'notes.md'`)
	r.waitJS(t, `document.querySelector('.viewer .md h1')?.innerText === 'Notes'`)
}

// TestPDFPreviewRunsNothing: a ".pdf" that is really an HTML page with a
// script opens in the browser's PDF viewer as a PDF (the type is fixed by
// the name and never sniffed), so its script never runs in the page's
// origin. (The viewer cannot be sandboxed: Chromium refuses a PDF in a
// sandboxed frame, and ignores a CSP sandbox on the PDF's own answer.)
func TestPDFPreviewRunsNothing(t *testing.T) {
	t.Parallel() // its own server and browser context
	r := newWorkspaceRig(t)
	os.WriteFile(filepath.Join(r.cwd, "evil.pdf"), []byte(`<html><body><script>parent.document.title = 'pwned'; parent.pwned = true;</script>evil</body></html>`), 0o644)
	os.WriteFile(filepath.Join(r.cwd, "paper.pdf"), []byte(minimalPDF), 0o644)
	r.open(t, "/s/"+r.id)
	r.click(t, `.sess-actions button[title^="Files"]`)
	for _, name := range []string{"paper.pdf", "evil.pdf"} {
		r.waitJS(t, `[...document.querySelectorAll('.files-panel .fnode')].some((e) => e.innerText.trim() === '`+name+`')`)
		eval[bool](t, r.browser, `([...document.querySelectorAll('.files-panel .fnode')].find((e) => e.innerText.trim() === '`+name+`').click(), true)`)
		r.waitJS(t, `(() => { const d = document.querySelector('iframe.file-pdf')?.contentDocument;
			return !!d && d.readyState === 'complete' && d.location.href.includes('`+name+`'); })()`)
		got := eval[string](t, r.browser, `(() => { const d = document.querySelector('iframe.file-pdf').contentDocument;
			return d.contentType + ' ' + d.querySelectorAll('script').length + ' ' + (window.pwned === true) + ' ' + document.title.includes('pwned'); })()`)
		if got != "application/pdf 0 false false" {
			t.Errorf("%s in the viewer: type, scripts, ran, title: %s", name, got)
		}
	}
}
