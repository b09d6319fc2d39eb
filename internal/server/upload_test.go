package server

import (
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUploadAndPreviews: a file uploaded into a session's folder lands
// there; the same name again is 409 exists until confirmed; a path out of
// the folder is refused; PDFs, audio and video are served as themselves
// (never sniffed, ranges for seeking), a PDF framable by the app only and
// everything else sandboxed.
func TestUploadAndPreviews(t *testing.T) {
	r := newRig(t, Options{})
	cwd := t.TempDir()
	os.Mkdir(filepath.Join(cwd, "docs"), 0o755)
	id := newSessionIn(t, r, filepath.Dir(r.find("Dark theme")["path"].(string)), cwd)
	base := "/api/sessions/" + id
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	got := r.json("POST", base+"/upload", map[string]any{"path": "docs", "name": "paper.pdf", "data": b64("%PDF-1.4 <script>x</script>")}, 200)
	if got["path"] != "docs/paper.pdf" {
		t.Errorf("answer %v", got)
	}
	if code := errCode(t, r.json("POST", base+"/upload", map[string]any{"path": "docs", "name": "paper.pdf", "data": b64("other")}, 409)); code != "exists" {
		t.Errorf("same name: %s", code)
	}
	r.json("POST", base+"/upload", map[string]any{"path": "docs", "name": "paper.pdf", "data": b64("%PDF-1.4 v2"), "overwrite": true}, 200)
	if b, _ := os.ReadFile(filepath.Join(cwd, "docs", "paper.pdf")); string(b) != "%PDF-1.4 v2" {
		t.Errorf("after overwrite: %q", b)
	}
	r.json("POST", base+"/upload", map[string]any{"path": "../", "name": "x", "data": b64("x")}, 403)
	r.json("POST", base+"/upload", map[string]any{"path": "", "name": "../x", "data": b64("x")}, 400)

	resp := r.do("GET", base+"/file?path=docs/paper.pdf", nil)
	h := resp.Header
	if h.Get("Content-Type") != "application/pdf" || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
		!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'self'") || h.Get("X-Frame-Options") != "SAMEORIGIN" ||
		h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("PDF headers: %v", h)
	}
	os.WriteFile(filepath.Join(cwd, "clip.mp4"), []byte("0123456789"), 0o644)
	resp = r.do("GET", base+"/file?path=clip.mp4", nil, "Range", "bytes=2-4")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 206 || string(body) != "234" || resp.Header.Get("Content-Type") != "video/mp4" ||
		!strings.Contains(resp.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Errorf("video range: %d %q %v", resp.StatusCode, body, resp.Header)
	}
}
