package server

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"piweb/internal/cwdfs"
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
	id := r.sessionIn(cwd)
	base := "/api/sessions/" + id
	up := func(query, data string, want int) map[string]any {
		t.Helper()
		resp := r.do("POST", base+"/upload?"+query, data, "Content-Type", "application/octet-stream")
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Fatalf("upload %s: %d, want %d: %s", query, resp.StatusCode, want, b)
		}
		var out map[string]any
		json.Unmarshal(b, &out)
		return out
	}
	got := up("path=docs&name=paper.pdf", "%PDF-1.4 <script>x</script>", 200)
	if got["path"] != "docs/paper.pdf" || got["size"] != float64(27) {
		t.Errorf("answer %v", got)
	}
	if code := errCode(t, up("path=docs&name=paper.pdf", "other", 409)); code != "exists" {
		t.Errorf("same name: %s", code)
	}
	up("path=docs&name=paper.pdf&overwrite=1", "%PDF-1.4 v2", 200)
	if b, _ := os.ReadFile(filepath.Join(cwd, "docs", "paper.pdf")); string(b) != "%PDF-1.4 v2" {
		t.Errorf("after overwrite: %q", b)
	}
	up("path=..%2F&name=x", "x", 403)
	up("path=&name=..%2Fx", "x", 400)
	up("path=&name="+url.QueryEscape("ünï cödé.txt"), "x", 200)
	if _, err := os.Stat(filepath.Join(cwd, "ünï cödé.txt")); err != nil {
		t.Error(err)
	}
	// Raw bytes are for the upload route only; JSON stays the rule.
	r.json("POST", base+"/rename", `{"name":"x"}`, 415, "Content-Type", "application/octet-stream")

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

// TestUploadTooLarge: an upload over the limit is refused before a byte is
// written when its length says so, and after the limit when it does not
// (a streamed body); nothing is left in the folder either way.
func TestUploadTooLarge(t *testing.T) {
	r := newRig(t, Options{})
	cwd := t.TempDir()
	id := r.sessionIn(cwd)
	u := r.ts.URL + "/api/sessions/" + id + "/upload?path=&name=big.bin"
	for _, chunked := range []bool{false, true} {
		var body io.Reader = io.LimitReader(zeros{}, cwdfs.MaxUpload+1)
		if chunked {
			body = struct{ io.Reader }{body} // no length: sent chunked
		}
		req, _ := http.NewRequest("POST", u, body)
		if !chunked {
			req.ContentLength = cwdfs.MaxUpload + 1
		}
		req.Header.Set("Content-Type", "application/octet-stream")
		resp, err := r.ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked %v: status %d", chunked, resp.StatusCode)
		}
		if ents, _ := os.ReadDir(cwd); len(ents) != 0 {
			t.Errorf("chunked %v: left %v", chunked, ents)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
