package pisession

import (
	"bytes"
	"fmt"
)

// Repair returns content for the file that pi reads without loss or
// surprise, and a line per change. Everything left out or changed stays in
// the backup RewriteFile keeps. The rules:
//   - lines that are not JSON objects (torn, garbage, null, bare values)
//     and repeated headers are left out, as are exact repeats of a line;
//   - a missing header is taken from a later one, or made anew for cwd;
//   - an entry without a string id gets a fresh one, and of entries sharing
//     an id all but the last (the one pi's index keeps) get fresh ones;
//   - an entry whose parent is missing is linked to the entry before it in
//     the file, which is where pi appended it from;
//   - a parent link that closes a loop is cut, making the entry a root;
//   - older versions are migrated.
func (s *Session) Repair(cwd string) ([]byte, []string) {
	r := repairer{s: s}
	r.dropNonEntries()
	header := r.header(cwd)
	entries := r.keptEntries()
	entries = r.fixIDs(entries)
	entries = r.fixParents(entries)
	entries = r.cutCycles(entries)
	if s.Migrated {
		r.note("migrated from version %d to %d", s.Version, CurrentVersion)
	}
	out := header
	for _, e := range entries {
		out = appendLine2(out, e.Raw)
	}
	return out, r.changes
}

type repairer struct {
	s       *Session
	changes []string
}

func (r *repairer) note(format string, args ...any) {
	r.changes = append(r.changes, fmt.Sprintf(format, args...))
}

func (r *repairer) dropNonEntries() {
	for _, p := range r.s.Defects() {
		switch p.Kind {
		case Malformed:
			if p.Line == 1 && r.s.bomHeader != nil {
				continue // the header behind a byte order mark, kept
			}
			r.note("line %d: dropped (%s)", p.Line, p.Kind)
		case Truncated, NullLine, NonObject, DuplicateHeader:
			r.note("line %d: dropped (%s)", p.Line, p.Kind)
		}
	}
}

// header returns the header line for the repaired file.
func (r *repairer) header(cwd string) []byte {
	if h := r.s.Header; h != nil {
		return appendLine2(nil, h.Raw)
	}
	if h := r.s.bomHeader; h != nil && h.IsObject() && h.Type == "session" {
		if _, ok := h.String("id"); ok {
			r.note("header: removed the byte order mark before it")
			return appendLine2(nil, h.Raw)
		}
	}
	for _, rec := range r.s.records {
		if _, ok := rec.String("id"); ok && rec.Type == "session" && rec.IsObject() {
			r.note("header: moved the header of line %d to the top", rec.Line)
			return appendLine2(nil, rec.Raw)
		}
	}
	r.note("header: none found; wrote a new one with cwd %q", cwd)
	return r.s.newHeader(appendJSString(nil, cwd), "")
}

// keptEntries returns the object entries, without exact repeats.
func (r *repairer) keptEntries() []*Entry {
	var out []*Entry
	seen := map[string]*Entry{}
	for _, e := range r.s.Entries {
		if !e.IsObject() {
			continue
		}
		if prev, ok := seen[e.idK()]; ok && bytes.Equal(prev.Raw, e.Raw) {
			r.note("line %d: dropped (repeats line %d)", e.Line, prev.Line)
			continue
		}
		seen[e.idK()] = e
		out = append(out, e)
	}
	return out
}

// fixIDs gives fresh ids to entries without a string id and to all but the
// last of entries sharing one.
func (r *repairer) fixIDs(entries []*Entry) []*Entry {
	last := map[string]int{}
	taken := map[string]bool{}
	for i, e := range entries {
		last[e.idK()] = i
		taken[e.ID] = true
	}
	for i, e := range entries {
		if e.idK()[0] == 's' && last[e.idK()] == i {
			continue
		}
		id := NewEntryID(func(id string) bool { return taken[id] })
		taken[id] = true
		entries[i] = withMember(e, "id", appendJSString(nil, id))
		r.note("line %d: new id %s (was %s)", e.Line, id, orAbsent(e.Field("id")))
	}
	return entries
}

// fixParents links entries whose parent is missing to the entry before.
func (r *repairer) fixParents(entries []*Entry) []*Entry {
	ids := map[string]bool{}
	for _, e := range entries {
		ids[e.idK()] = true
	}
	prev := []byte("null")
	for i, e := range entries {
		if !e.parentIsNull() && !ids[e.parentK()] {
			entries[i] = withMember(e, "parentId", prev)
			r.note("line %d: parent %s is missing; linked to the entry before it", e.Line, orAbsent(e.Field("parentId")))
		}
		prev = entries[i].Field("id")
	}
	return entries
}

// cutCycles makes the entry that closes each parent loop a root.
func (r *repairer) cutCycles(entries []*Entry) []*Entry {
	probe := &Session{Entries: entries}
	probe.findCycles()
	for _, p := range probe.Problems {
		for i, e := range entries {
			if e.Line == p.Line {
				entries[i] = withMember(e, "parentId", []byte("null"))
				r.note("line %d: parent link closed a loop; now a root", e.Line)
			}
		}
	}
	return entries
}

// withMember returns a copy of e with one member set.
func withMember(e *Entry, key string, value []byte) *Entry {
	c := *e
	c.setMembers(member3(key, value))
	return &c
}

func orAbsent(raw []byte) string {
	if raw == nil {
		return "absent"
	}
	return string(raw)
}
