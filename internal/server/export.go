package server

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/export"
	"piweb/internal/ops"
	"piweb/pisession"
)

// export writes the session for download. format=jsonl (the default) is
// the file byte for byte; with scope=branch it is pi's /export of one
// branch (re-chained, a new header). md and html are readable documents
// of the branch's context (internal/export); nothing in an HTML export
// runs (escaped text, no script, a CSP that forbids any).
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	format := q.Get("format")
	if format == "" {
		format = "jsonl"
	}
	m, sess, leaf, err := s.openAt(r)
	if err != nil {
		return err
	}
	name := exportName(m)
	switch format {
	case "jsonl":
		if q.Get("scope") != "branch" {
			if machine, _ := s.remoteMachine(r); machine != "" {
				return s.exportRemote(w, r, machine)
			}
			return s.exportFile(w, m)
		}
		id := ""
		if leaf != nil {
			id = leaf.ID
		}
		if id != "" && sess.ByID(id) == nil {
			return errs.Errorf(errs.NotFound, "entry not found")
		}
		// Written a line at a time: a branch of a huge message is not
		// copied whole once more (issue 21).
		downloadHeaders(w, "application/x-ndjson", name+"-branch.jsonl")
		sess.WriteLinear(w, id) // started: a failure cannot be answered
		return nil
	case "md", "html":
		// Written as it is rendered: a document of a huge message is not
		// held whole once more (issue 21).
		ctype, _ := export.MediaType(format)
		downloadHeaders(w, ctype, name+"."+format)
		export.Write(w, format, ops.Document(m, sess, leaf)) // started: a failure cannot be answered
		return nil
	}
	return errs.Errorf(errs.Invalid, "format must be jsonl, md or html")
}

// exportFile sends the session file as it is on disk.
func (s *Server) exportFile(w http.ResponseWriter, m Meta) error {
	f, err := os.Open(m.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	downloadHeaders(w, "application/x-ndjson", exportName(m)+".jsonl")
	if st, err := f.Stat(); err == nil {
		w.Header().Set("Content-Length", fmt.Sprint(st.Size()))
	}
	io.Copy(w, f) // a failure mid-body cannot be reported: the status is sent
	return nil
}

// exportRemote sends another machine's session file as pushed to the
// fleet database (its complete lines, byte for byte), never a local file
// at the same path.
func (s *Server) exportRemote(w http.ResponseWriter, r *http.Request, machine string) error {
	m, data, err := s.remoteFile(r, machine)
	if err != nil {
		return err
	}
	downloadHeaders(w, "application/x-ndjson", exportName(m)+".jsonl")
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	w.Write(data)
	return nil
}

// maxExportIDs bounds the sessions of one zip.
const maxExportIDs = 1000

// exportMany writes the sessions named in the body as one zip, each as
// export gives it alone (jsonl: the file byte for byte; md, html: its
// current branch), under its export name: this machine's by id, another
// machine's by its ref ID@MACHINE, as pushed to the fleet database. Every
// session is found before the answer starts: an unknown one is 404 and
// nothing is sent.
func (s *Server) exportMany(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ExportRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if body.Format == "" {
		body.Format = "jsonl"
	}
	if body.Format != "jsonl" && body.Format != "md" && body.Format != "html" {
		return errs.Errorf(errs.Invalid, "format must be jsonl, md or html")
	}
	if len(body.IDs) == 0 || len(body.IDs) > maxExportIDs {
		return errs.Errorf(errs.Invalid, "ids must name 1 to %d sessions", maxExportIDs)
	}
	srcs := make([]exportSrc, 0, len(body.IDs))
	for _, id := range body.IDs {
		src, err := s.exportSrcOf(r.Context(), id)
		if err != nil {
			return err
		}
		srcs = append(srcs, src)
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment",
		map[string]string{"filename": fmt.Sprintf("pi-sessions-%d.zip", len(srcs))}))
	zw := zip.NewWriter(w)
	names := map[string]bool{}
	for _, src := range srcs {
		if err := s.zipOne(r.Context(), zw, src, body.Format, names); err != nil {
			s.log.Warn("bulk export cut short", "session", src.m.Path, "machine", src.machine, "err", err) // the status is sent
			return nil
		}
	}
	zw.Close()
	return nil
}

// exportSrc is one session of a bulk export: this machine's, or
// machine's (its listing as pushed; its lines are read when zipped).
type exportSrc struct {
	m            Meta
	machine, key string
}

// exportSrcOf finds the session of id, a local id or a ref ID@MACHINE.
func (s *Server) exportSrcOf(ctx context.Context, id string) (exportSrc, error) {
	i := strings.IndexByte(id, '@')
	if i < 0 {
		m, err := s.lookupID(ctx, id)
		if err != nil {
			return exportSrc{}, errs.Errorf(errs.NotFound, "session %.80s not found", id)
		}
		return exportSrc{m: m}, nil
	}
	key, machine := id[:i], id[i+1:]
	if err := s.checkRef(key, machine); err != nil {
		return exportSrc{}, err
	}
	m, _, err := s.fleetFile(ctx, machine, key)
	return exportSrc{m: m, machine: machine, key: key}, err
}

// zipOne adds session src to zw in format, under a name not in names.
func (s *Server) zipOne(ctx context.Context, zw *zip.Writer, src exportSrc, format string, names map[string]bool) error {
	m := src.m
	name := exportName(m)
	for n := 2; names[name+"."+format]; n++ {
		name = fmt.Sprintf("%s-%d", exportName(m), n)
	}
	names[name+"."+format] = true
	if src.machine != "" {
		return s.zipRemote(ctx, zw, src, name+"."+format, format)
	}
	if format == "jsonl" {
		f, err := os.Open(m.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		zf, err := zw.CreateHeader(zipHeader(name+".jsonl", m))
		if err == nil {
			_, err = io.Copy(zf, f)
		}
		return err
	}
	sess, err := s.load(m.Path)
	if err != nil {
		return err
	}
	zf, err := zw.CreateHeader(zipHeader(name+"."+format, m))
	if err != nil {
		return err
	}
	return export.Write(zf, format, ops.Document(m, sess, sess.Leaf()))
}

// zipRemote adds another machine's session to zw as file, from its lines
// as pushed to the fleet database, as exportRemote and export give them.
func (s *Server) zipRemote(ctx context.Context, zw *zip.Writer, src exportSrc, file, format string) error {
	m, data, err := s.fleetFile(ctx, src.machine, src.key)
	if err != nil {
		return err
	}
	zf, err := zw.CreateHeader(zipHeader(file, m))
	if err != nil {
		return err
	}
	if format == "jsonl" {
		_, err = zf.Write(data)
		return err
	}
	sess := pisession.Parse(data)
	return export.Write(zf, format, ops.Document(m, sess, sess.Leaf()))
}

// zipHeader is a compressed entry dated at the session's last activity.
func zipHeader(name string, m Meta) *zip.FileHeader {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate}
	if !math.IsNaN(m.Modified) && m.Modified > 0 {
		h.Modified = time.UnixMilli(int64(m.Modified))
	}
	return h
}

func downloadHeaders(w http.ResponseWriter, ctype, name string) {
	w.Header().Set("Content-Type", ctype)
	// FormatMediaType writes a name that is not ASCII as RFC 2231's
	// filename*=utf-8''..., which browsers read.
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:")
}

// exportName is a download's file name without its extension: the
// session's name, made safe for a file name (letters and digits of any
// script, runs of anything else as one "-", at most 60 characters), then
// the first 8 characters of its id, so that two sessions of one name do
// not collide; "pi-session-ID" for an unnamed session.
func exportName(m Meta) string {
	var b strings.Builder
	n, dash := 0, false
	for _, r := range m.Name {
		if n >= 60 {
			break
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			n, dash = n+1, false
		}
		b.WriteRune(r)
		n++
	}
	if !m.HasName || b.Len() == 0 {
		return "pi-session-" + m.ID
	}
	id := m.ID
	if len(id) > 8 {
		id = id[:8]
	}
	return b.String() + "-" + id
}
