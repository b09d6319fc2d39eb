package catalog

import (
	"path/filepath"
	"unicode/utf16"

	"piweb/internal/apitype"
	"piweb/internal/sessionstore"
)

// Item is the JSON shape of a session everywhere the API lists one
// (docs/api.md): its Meta and what it takes from outside it (Links)
// (apitype.Item, where the API's shapes are defined).
type Item = apitype.Item

// Links is what a session's Item takes from outside its Meta: whether its
// worker runs, and its parent's API id (nil when there is no parent or it
// is not listed).
type Links struct {
	Running  bool
	ParentID *string
}

// ItemOf builds the Item of m.
func ItemOf(m Meta, l Links) Item {
	it := Item{
		ID: m.Key, Path: m.Path, Cwd: m.Cwd, MessageCount: m.MessageCount,
		FirstMessage: m.FirstMessage, Size: m.Size,
		Created: ISOTime(m.Created), Modified: ISOTime(m.Modified),
		Running: l.Running, ParentSessionID: l.ParentID,
	}
	if m.HasName {
		it.Name = &m.Name
	}
	if m.ParentPath != "" {
		p := m.ParentPath
		it.ParentSessionPath = &p
	}
	return it
}

// Lineage is a session's fork family across files: its parent, every
// ancestor up to the root (parent first) and its children (apitype.Lineage,
// where the API's shapes are defined).
type Lineage = apitype.Lineage

// Lineage is m's fork family, each session as item shows it; a cycle of
// parents stops at the first session seen twice.
func (c *Catalog) Lineage(m Meta, item func(Meta) Item) Lineage {
	l := Lineage{Ancestors: []Item{}, Children: []Item{}}
	seen := map[string]bool{m.Path: true}
	for cur := m; ; {
		pm, found := c.Parent(cur)
		if !found || seen[pm.Path] {
			break
		}
		seen[pm.Path] = true
		it := item(pm)
		if l.Parent == nil {
			l.Parent = &it
		}
		l.Ancestors = append(l.Ancestors, it)
		cur = pm
	}
	for _, ch := range c.Children(m.Path) {
		l.Children = append(l.Children, item(ch))
	}
	return l
}

// Project is one folder sessions ran in: how many, and when the latest was
// modified (apitype.Project, where the API's shapes are defined).
type Project = apitype.Project

// Projects groups metas, newest first, by folder, in the order of each
// folder's latest session (never nil).
func Projects(metas []Meta) []*Project {
	out := []*Project{}
	byCwd := map[string]*Project{}
	for _, m := range metas { // newest first, so the first seen is the latest
		p := byCwd[m.Cwd]
		if p == nil {
			p = &Project{Cwd: m.Cwd, Modified: ISOTime(m.Modified)}
			byCwd[m.Cwd] = p
			out = append(out, p)
		}
		p.Sessions++
	}
	return out
}

// HitJSON is a search hit as the API answers it: highlights in UTF-16 code
// units (JavaScript's string indexes), the session as an Item
// (apitype.Hit, where the API's shapes are defined).
type HitJSON = apitype.Hit

// JSON is h as the API answers it, its session as item shows it.
func (h Hit) JSON(item func(Meta) Item) HitJSON {
	hl := make([][2]int, 0, len(h.Highlights))
	for _, x := range h.Highlights {
		hl = append(hl, [2]int{utf16Offset(h.Snippet, x[0]), utf16Offset(h.Snippet, x[1])})
	}
	return HitJSON{SessionID: h.Session.Key, EntryID: h.EntryID, Snippet: h.Snippet, Highlights: hl,
		OnCurrentBranch: h.OnBranch, Role: h.Role, Timestamp: h.Timestamp, Session: item(h.Session)}
}

// utf16Offset converts a byte offset in s into UTF-16 code units, the unit
// JavaScript strings are indexed in.
func utf16Offset(s string, off int) int {
	n := 0
	for i, r := range s {
		if i >= off {
			break
		}
		n += utf16.RuneLen(r)
	}
	return n
}

// ChildFiles are the files forked from the session file at path, as
// session.Store.Trash re-points them.
func (c *Catalog) ChildFiles(path string) []sessionstore.ChildFile {
	var out []sessionstore.ChildFile
	for _, ch := range c.Children(path) {
		out = append(out, sessionstore.ChildFile{Path: ch.Path, Parent: ch.ParentPath})
	}
	return out
}

// Folders are the distinct absolute cwds of metas, in their order, at
// most max of them.
func Folders(metas []Meta, limit int) []string {
	seen := map[string]bool{}
	var dirs []string
	for _, m := range metas {
		if !seen[m.Cwd] && filepath.IsAbs(m.Cwd) && len(dirs) < limit {
			seen[m.Cwd] = true
			dirs = append(dirs, m.Cwd)
		}
	}
	return dirs
}
