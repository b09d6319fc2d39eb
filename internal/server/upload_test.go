package server

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/cwdfs"
	"piweb/internal/errs"
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
	api, ctx := r.api(), t.Context()
	up := func(o client.UploadOptions, data string, want int) (apitype.Upload, error) {
		t.Helper()
		a, err := api.Upload(ctx, id, o, strings.NewReader(data))
		if want != 200 {
			wantErr(t, fmt.Sprintf("upload %+v", o), err, want, "")
		} else if err != nil {
			t.Fatalf("upload %+v: %v", o, err)
		}
		return a, err
	}
	if got, _ := up(client.UploadOptions{Folder: "docs", Name: "paper.pdf"}, "%PDF-1.4 <script>x</script>", 200); got != (apitype.Upload{Path: "docs/paper.pdf", Size: 27}) {
		t.Errorf("answer %+v", got)
	}
	if _, err := up(client.UploadOptions{Folder: "docs", Name: "paper.pdf"}, "other", 409); errs.KindOf(err) != errs.Exists {
		t.Errorf("same name: %v", err)
	}
	up(client.UploadOptions{Folder: "docs", Name: "paper.pdf", Overwrite: true}, "%PDF-1.4 v2", 200)
	if b, _ := os.ReadFile(filepath.Join(cwd, "docs", "paper.pdf")); string(b) != "%PDF-1.4 v2" {
		t.Errorf("after overwrite: %q", b)
	}
	up(client.UploadOptions{Folder: "../", Name: "x"}, "x", 403)
	up(client.UploadOptions{Name: "../x"}, "x", 400)
	up(client.UploadOptions{Name: "ünï cödé.txt"}, "x", 200)
	if _, err := os.Stat(filepath.Join(cwd, "ünï cödé.txt")); err != nil {
		t.Error(err)
	}
	// Raw bytes are for the upload route only; JSON stays the rule.
	err := r.send("POST", "/api/sessions/"+id+"/rename", `{"name":"x"}`, "Content-Type", "application/octet-stream")
	wantErr(t, "raw bytes to rename", err, 415, "")

	_, h, err := api.File(ctx, id, "docs/paper.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if h.Get("Content-Type") != "application/pdf" || !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") ||
		!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'self'") || h.Get("X-Frame-Options") != "SAMEORIGIN" ||
		h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("PDF headers: %v", h)
	}
	os.WriteFile(filepath.Join(cwd, "clip.mp4"), []byte("0123456789"), 0o644)
	resp, err := api.Send(ctx, "GET", "/api/sessions/"+id+"/file?path=clip.mp4", nil, http.Header{"Range": {"bytes=2-4"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
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
	for _, chunked := range []bool{false, true} {
		o := client.UploadOptions{Name: "big.bin", Size: cwdfs.MaxUpload + 1}
		if chunked {
			o.Size = 0 // no length: sent chunked
		}
		_, err := r.api().Upload(t.Context(), id, o, io.LimitReader(zeros{}, cwdfs.MaxUpload+1))
		if client.StatusOf(err) != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked %v: %v", chunked, err)
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
