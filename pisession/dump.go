package pisession

import (
	"fmt"
	"maps"
	"slices"
	"time"
)

// Dump lists what a parse holds, as text: every record with its fields
// (unexported ones included), the entries, the listing's records, the
// ids, problems, context, listing info and tree. It is for tests and
// debugging, comparing two parses of one file (a growing parse against
// Parse); its text may change with any version.
func (s *Session) Dump() []string {
	line := func(e *Entry) string {
		if e == nil {
			return "nil"
		}
		return fmt.Sprintf("%d@%d %d %q %q %q %v %v %s", e.Line, e.Offset, e.kind, e.idK(), e.parentK(), e.Type+"|"+e.ID+"|"+e.ParentID+"|"+e.Timestamp,
			e.top(), e.msg(), e.Raw)
	}
	out := []string{fmt.Sprintf("header %s v%d migrated=%v size=%d bom=%s", line(s.Header), s.Version, s.Migrated, s.Size, line(s.bomHeader))}
	out = append(out, fmt.Sprintf("problems %v", s.Problems))
	for _, e := range s.records {
		out = append(out, "record "+line(e))
	}
	for _, e := range s.Entries {
		out = append(out, fmt.Sprintf("entry %d", e.Line))
	}
	for _, e := range s.listing() {
		out = append(out, "listed "+line(e))
	}
	last := map[string]*Entry{}
	for _, e := range s.Entries {
		last[e.idK()] = e
	}
	for _, k := range slices.Sorted(maps.Keys(last)) {
		out = append(out, fmt.Sprintf("id %q %d", k, s.byKey(k).Line))
	}
	c := s.Context("")
	out = append(out, fmt.Sprintf("context %q %q %s %s %v", c.Messages, c.EntryIDs, c.ThinkingLevel, c.Model, c.Edits))
	in, ok := s.Info("x", time.Time{})
	out = append(out, fmt.Sprintf("info %v %+v", ok, in))
	var tree func(depth string, nodes []*Node)
	tree = func(depth string, nodes []*Node) {
		for _, n := range nodes {
			out = append(out, fmt.Sprintf("tree %s%d %s %s", depth, n.Entry.Line, n.Label, n.LabelTimestamp))
			tree(depth+" ", n.Children)
		}
	}
	tree("", s.Tree())
	return out
}
