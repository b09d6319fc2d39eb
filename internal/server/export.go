package server

import (
	"bytes"
	"fmt"
	"html"
	"net/http"
	"strings"

	"piweb/internal/session"
)

// export writes the session for download: jsonl as pi's /export (the
// branch re-chained), md and html as a readable transcript of the branch's
// context. Nothing in an HTML export runs: text is escaped and the page
// carries no script.
func (s *Server) export(w http.ResponseWriter, r *http.Request) error {
	format := r.URL.Query().Get("format")
	if format == "" {
		format = "jsonl"
	}
	m, sess, err := s.open(r)
	if err != nil {
		return err
	}
	leaf, err := leafEntry(r, sess)
	if err != nil {
		return err
	}
	var body []byte
	var ctype string
	switch format {
	case "jsonl":
		id := ""
		if leaf != nil {
			id = leaf.ID
		}
		if body, err = sess.ExportLinear(id); err != nil {
			return storeErr(err)
		}
		ctype = "application/x-ndjson"
	case "md":
		body, ctype = exportMarkdown(m, sess, leaf), "text/markdown; charset=utf-8"
	case "html":
		body, ctype = exportHTML(m, sess, leaf), "text/html; charset=utf-8"
	default:
		return errorf(Invalid, "format must be jsonl, md or html")
	}
	name := "pi-session-" + m.ID + "." + format
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'")
	_, err = w.Write(body)
	return nil
}

// transcript is the branch as a list of (role, text) turns.
type turn struct{ role, text string }

func transcript(sess *session.Session, leaf *session.Entry) []turn {
	c := sess.ContextAt(leaf)
	var out []turn
	for _, raw := range c.Messages {
		m, ok := session.DecodeMessage(raw)
		if !ok {
			continue
		}
		out = append(out, turn{m.Role, turnText(&m)})
	}
	return out
}

func turnText(m *session.Message) string {
	switch m.Role {
	case "bashExecution":
		return "$ " + m.Command + "\n" + m.Output
	case "compactionSummary", "branchSummary":
		return m.Summary
	}
	text := m.Content.Text("\n")
	for _, p := range m.Content.Blocks() {
		if p.Type == "toolCall" {
			text += fmt.Sprintf("\n[tool call %s %s]", p.Name, p.Arguments)
		}
	}
	return strings.TrimSpace(text)
}

func title(m Meta) string {
	if m.HasName && m.Name != "" {
		return m.Name
	}
	return clip(strings.Join(strings.Fields(m.FirstMessage), " "), 80)
}

func exportMarkdown(m Meta, sess *session.Session, leaf *session.Entry) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n- Session: `%s`\n- Directory: `%s`\n", title(m), m.ID, m.Cwd)
	if c := isoTime(m.Created); c != nil {
		fmt.Fprintf(&b, "- Created: %s\n", *c)
	}
	for _, t := range transcript(sess, leaf) {
		fmt.Fprintf(&b, "\n## %s\n\n", t.role)
		if t.role == "toolResult" || t.role == "bashExecution" {
			fmt.Fprintf(&b, "````\n%s\n````\n", t.text)
		} else {
			fmt.Fprintf(&b, "%s\n", t.text)
		}
	}
	return b.Bytes()
}

func exportHTML(m Meta, sess *session.Session, leaf *session.Entry) []byte {
	var b bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title>\n", esc(title(m)))
	b.WriteString("<style>body{font:15px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}" +
		"pre{white-space:pre-wrap;background:#8881;padding:.5rem;border-radius:4px}" +
		".role{font-weight:600;text-transform:capitalize;margin-top:1.5rem}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p><code>%s</code> in <code>%s</code></p>\n", esc(title(m)), esc(m.ID), esc(m.Cwd))
	for _, t := range transcript(sess, leaf) {
		fmt.Fprintf(&b, "<div class=\"role\">%s</div>\n<pre>%s</pre>\n", esc(t.role), esc(t.text))
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}
