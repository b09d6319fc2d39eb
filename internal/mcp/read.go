package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"piweb/internal/index"
	"piweb/internal/jsjson"
	"piweb/pisession"
)

// pageArgs are the arguments read_context and read_entry share.
type pageArgs struct {
	SessionID *string `json:"sessionId"`
	MaxChars  *int    `json:"maxChars"`
}

// session is the session the arguments name and the page's size.
func (s *Server) session(ctx context.Context, a pageArgs) (index.Meta, int, error) {
	if a.SessionID == nil {
		return index.Meta{}, 0, fmt.Errorf("sessionId is required")
	}
	chars, err := bound("maxChars", a.MaxChars, DefaultChars, 1000, MaxChars)
	if err != nil {
		return index.Meta{}, 0, err
	}
	m, err := s.findSession(ctx, *a.SessionID)
	return m, chars, err
}

// message is one message of a context page: pi's message JSON, or when
// it alone is longer than the page, its head as text.
type message struct {
	Index   int             `json:"index"`
	EntryID string          `json:"entryId"`
	Message json.RawMessage `json:"message,omitempty"`
	// Truncated messages give their size and head; read_entry reads all.
	Truncated bool   `json:"truncated,omitempty"`
	Bytes     int    `json:"bytes,omitempty"`
	Head      string `json:"head,omitempty"`
}

type contextAnswer struct {
	SessionID string    `json:"sessionId"`
	Project   string    `json:"project"`
	Total     int       `json:"total"`
	Messages  []message `json:"messages"`
	// Next is the next page's start, absent at the end.
	Next *int `json:"next,omitempty"`
}

// pages reads a session's context in pages: total messages, page(start,
// end) those of [start, end) with their entries' ids.
type pages struct {
	total int
	page  func(start, end int) ([][]byte, []string, error)
	done  func()
}

// contextPages reads the context at the file's leaf from the index when
// it can (index.Tail: the page's lines only), else from a parse.
func (s *Server) contextPages(ctx context.Context, path string) (pages, error) {
	t, done, ok, err := s.o.Index.Tail(ctx, path)
	if err == nil && ok {
		return pages{t.Total, func(start, end int) ([][]byte, []string, error) {
			msgs, ids, ok := t.Page(start, end)
			if !ok {
				return nil, nil, fmt.Errorf("the session changed while it was read: try again")
			}
			return msgs, ids, nil
		}, done}, nil
	}
	sess, err := pisession.Load(path)
	if err != nil {
		return pages{}, err
	}
	c := sess.Context("")
	return pages{len(c.Messages), func(start, end int) ([][]byte, []string, error) {
		return c.Messages[start:end], c.EntryIDs[start:end], nil
	}, func() {}}, nil
}

// chunk is how many messages a context page reads at a time.
const chunk = 20

func (s *Server) readContext(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		pageArgs
		Start *int `json:"start"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	m, chars, err := s.session(ctx, a.pageArgs)
	if err != nil {
		return nil, err
	}
	p, err := s.contextPages(ctx, m.Info.Path)
	if err != nil {
		return nil, err
	}
	defer p.done()
	start := 0
	if a.Start != nil {
		start = *a.Start
	}
	if start < 0 {
		start = max(0, p.total+start)
	}
	out := contextAnswer{SessionID: m.SessionID, Project: m.Info.Cwd, Total: p.total, Messages: []message{}}
	next, err := fillPage(&out, p, min(start, p.total), chars)
	if next < p.total {
		out.Next = &next
	}
	return out, err
}

// fillPage adds messages from start until the page holds chars; it
// returns the index of the first message left out.
func fillPage(out *contextAnswer, p pages, start, chars int) (int, error) {
	i := start
	for i < p.total {
		msgs, ids, err := p.page(i, min(i+chunk, p.total))
		if err != nil {
			return i, err
		}
		for k, raw := range msgs {
			m := message{Index: i, EntryID: ids[k], Message: raw}
			if !json.Valid(raw) || len(raw) > chars {
				if len(out.Messages) > 0 {
					return i, nil
				}
				m = message{Index: i, EntryID: ids[k], Truncated: true, Bytes: len(raw), Head: jsjson.Cut(string(raw), chars)}
			}
			out.Messages = append(out.Messages, m)
			chars -= len(raw) + 40
			i++
			if chars <= 0 {
				return i, nil
			}
		}
	}
	return i, nil
}

type entryAnswer struct {
	SessionID string `json:"sessionId"`
	EntryID   string `json:"entryId"`
	// Line is the entry's line in the file; Bytes its length.
	Line  int `json:"line"`
	Bytes int `json:"bytes"`
	// Entry is the whole entry when it fits in the page; else Text is
	// the page of its line from byte Offset, and Next the next page's
	// offset, absent at the end.
	Entry  json.RawMessage `json:"entry,omitempty"`
	Offset int             `json:"offset"`
	Next   *int            `json:"next,omitempty"`
	Text   string          `json:"text,omitempty"`
}

func (s *Server) readEntry(ctx context.Context, args json.RawMessage) (any, error) {
	var a struct {
		pageArgs
		EntryID *string `json:"entryId"`
		Offset  *int    `json:"offset"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return nil, err
	}
	m, chars, err := s.session(ctx, a.pageArgs)
	if err != nil {
		return nil, err
	}
	if a.EntryID == nil {
		return nil, fmt.Errorf("entryId is required")
	}
	sess, err := pisession.Load(m.Info.Path)
	if err != nil {
		return nil, err
	}
	e := sess.ByID(*a.EntryID)
	if e == nil {
		return nil, fmt.Errorf("session %s has no entry %q", m.SessionID, *a.EntryID)
	}
	off, err := bound("offset", a.Offset, 0, 0, len(e.Raw))
	if err != nil {
		return nil, err
	}
	out := entryAnswer{SessionID: m.SessionID, EntryID: *a.EntryID, Line: e.Line, Bytes: len(e.Raw), Offset: off}
	if off == 0 && len(e.Raw) <= chars && json.Valid(e.Raw) {
		out.Entry = e.Raw
		return out, nil
	}
	text := jsjson.Cut(string(e.Raw[off:]), chars)
	out.Text = text
	if next := off + len(text); next < len(e.Raw) {
		out.Next = &next
	}
	return out, nil
}
