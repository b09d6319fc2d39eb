package ops

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/export"
	"piweb/pisession"
)

// The read side the session page needs: the session's detail, its
// context and entries a page at a time, and search hits with their
// sessions.

// Detail is a session's header, tree, labels, lineage and problems.
func (o *Ops) Detail(m catalog.Meta, sess *pisession.Session) apitype.SessionDetail {
	labels := sess.LabelMap()
	d := detailOf(sess, labels, o.Cache.Tree(m.Path, sess, labels))
	d.Session, d.Lineage = o.Live.Item(m), o.Cat.Lineage(m, o.Live.Item)
	return d
}

// RemoteDetail is Detail of another machine's session, read from the
// fleet database: nothing of this machine (its workers, its listing's
// forks, its parse cache) applies to it.
func RemoteDetail(m catalog.Meta, sess *pisession.Session) apitype.SessionDetail {
	labels := sess.LabelMap()
	d := detailOf(sess, labels, sess.CompactTree(labels))
	d.Session, d.Lineage = catalog.ItemOf(m, catalog.Links{}), catalog.Lineage{Ancestors: []catalog.Item{}, Children: []catalog.Item{}}
	return d
}

// detailOf is what a session's detail holds of its file.
func detailOf(sess *pisession.Session, labels map[string]string, tree []pisession.TreeNode) apitype.SessionDetail {
	var leaf *string
	if l := sess.Leaf(); l != nil && l.ID != "" {
		leaf = &l.ID
	}
	var header json.RawMessage
	if sess.Header != nil {
		header = sess.Header.Raw
	}
	return apitype.SessionDetail{Header: header, Leaf: leaf, Tree: tree, Labels: labels, Problems: problemsOf(sess.Problems)}
}

// problemsOf is what the API says of Parse's findings (never null).
func problemsOf(ps []pisession.Problem) []apitype.Problem {
	out := make([]apitype.Problem, len(ps))
	for i, p := range ps {
		out[i] = apitype.Problem{Line: p.Line, Kind: string(p.Kind), Message: p.Message}
	}
	return out
}

// ContextPage is the page [start, end) of the messages pi sees at leaf
// (c, from sess.ContextAt(leaf)), and those messages as they are.
func ContextPage(sess *pisession.Session, leaf *pisession.Entry, c pisession.Context, start, end int) (apitype.ContextPage, []json.RawMessage) {
	msgs := make([]json.RawMessage, 0, end-start)
	for _, m := range c.Messages[start:end] {
		msgs = append(msgs, m)
	}
	return apitype.ContextPage{Before: beforeCursor(start), Edits: sess.EditsOnPage(leaf, c, start, end),
		EntryIDs: nonNil(c.EntryIDs[start:end]), HasMore: start > 0, Leaf: entryID(leaf), Model: rawOrNull(c.Model),
		Start: start, System: pisession.SystemMessages(c.Messages), ThinkingLevel: rawOrNull(c.ThinkingLevel),
		Total: len(c.Messages)}, msgs
}

// EntriesPage is the page [start, end) of path, the entries from the root
// to leaf, and those entries as they are.
func EntriesPage(path []*pisession.Entry, leaf *pisession.Entry, start, end int) (apitype.EntriesPage, []json.RawMessage) {
	entries := make([]json.RawMessage, 0, end-start)
	for _, e := range path[start:end] {
		entries = append(entries, e.Raw)
	}
	return apitype.EntriesPage{Before: beforeCursor(start), HasMore: start > 0, Leaf: entryID(leaf), Start: start,
		Total: len(path)}, entries
}

// Search runs q over the catalog, each hit with its session.
func (o *Ops) Search(ctx context.Context, q catalog.SearchQuery) (apitype.Search, error) {
	res, err := o.Cat.Search(ctx, q)
	if err != nil {
		return apitype.Search{}, err
	}
	out := make([]catalog.HitJSON, 0, len(res.Hits))
	for _, h := range res.Hits {
		out = append(out, h.JSON(o.Live.Item))
	}
	return apitype.Search{Hits: out, Total: len(out), More: res.More, SearchSummary: res.Summary(q)}, nil
}

// beforeCursor is the cursor of the page before one that starts at start
// (nil on the first page).
func beforeCursor(start int) *string {
	if start == 0 {
		return nil
	}
	b := strconv.Itoa(start)
	return &b
}

func entryID(e *pisession.Entry) *string {
	if e == nil || e.ID == "" {
		return nil
	}
	return &e.ID
}

func rawOrNull(b []byte) json.RawMessage {
	if b == nil {
		return json.RawMessage("null")
	}
	return b
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

// Document is the branch of sess ending at leaf as internal/export shows
// it, titled by the session's name, else its first message.
func Document(m catalog.Meta, sess *pisession.Session, leaf *pisession.Entry) export.Doc {
	name := ""
	if m.HasName {
		name = m.Name
	}
	d := export.Doc{Title: export.Title(name, m.FirstMessage, m.ID), ID: m.ID, Cwd: m.Cwd}
	if c := catalog.ISOTime(m.Created); c != nil {
		d.Created, _ = time.Parse(time.RFC3339Nano, *c)
	}
	return export.Branch(d, sess, leaf)
}

// ScanDetail is Detail of a session from a scan of its file
// (sessionstore.Cache.ScanTree), for a session whose parse is not cached: the
// same answer, without parsing the file; the scan is kept, so a file that
// only grew has only its appended bytes read. ok is false when the file
// needs the parse (Detail).
func (o *Ops) ScanDetail(m catalog.Meta) (apitype.SessionDetail, bool) {
	t, ok := o.Cache.ScanTree(m.Path)
	if !ok {
		return apitype.SessionDetail{}, false
	}
	var leaf *string
	if t.Leaf != "" {
		leaf = &t.Leaf
	}
	d := apitype.SessionDetail{Header: t.Header, Leaf: leaf, Tree: t.Tree, Labels: t.Labels, Problems: problemsOf(t.Problems)}
	d.Session, d.Lineage = o.Live.Item(m), o.Cat.Lineage(m, o.Live.Item)
	return d, true
}
