package session

import "fmt"

// Repair returns a content for the file that pi reads without loss or
// surprise, and what it changed. Lines that are not JSON objects (torn,
// garbage, null, bare values) and repeated headers are left out; a missing
// header is taken from a later one or made anew for cwd; parent links that
// loop are cut (the entry becomes a root); older versions are migrated.
// Everything left out stays in the backup RewriteFile keeps.
func (s *Session) Repair(cwd string) ([]byte, []string) {
	var changes []string
	for _, p := range s.Defects() {
		switch p.Kind {
		case Truncated, Malformed, NullLine, NonObject, DuplicateHeader:
			changes = append(changes, fmt.Sprintf("line %d: dropped (%s)", p.Line, p.Kind))
		}
	}
	header := s.Header
	if header == nil {
		header = s.laterHeader()
		changes = append(changes, "header: "+s.headerChange(header, cwd))
	}
	var out []byte
	if header != nil {
		out = appendLine2(out, header.Raw)
	} else {
		out = s.newHeader(appendJSString(nil, cwd), "")
	}
	cut := s.cycleEntries()
	for _, e := range s.Entries {
		if !e.IsObject() {
			continue
		}
		if cut[e] {
			c := *e
			c.setMembers(member3("parentId", []byte("null")))
			e = &c
			changes = append(changes, fmt.Sprintf("line %d: parentId set to null to break a cycle", e.Line))
		}
		out = appendLine2(out, e.Raw)
	}
	if s.Migrated {
		changes = append(changes, fmt.Sprintf("migrated from version %d to %d", s.Version, CurrentVersion))
	}
	return out, changes
}

// laterHeader returns the first valid header after the first record.
func (s *Session) laterHeader() *Entry {
	for _, r := range s.records {
		if _, ok := r.String("id"); ok && r.Type == "session" && r.IsObject() {
			return r
		}
	}
	return nil
}

func (s *Session) headerChange(h *Entry, cwd string) string {
	if h != nil {
		return fmt.Sprintf("moved the header of line %d to the top", h.Line)
	}
	return fmt.Sprintf("none found; wrote a new one with cwd %q", cwd)
}

// cycleEntries returns the entries at which findCycles saw a loop close.
func (s *Session) cycleEntries() map[*Entry]bool {
	cut := map[*Entry]bool{}
	for _, p := range s.Problems {
		if p.Kind != Cycle {
			continue
		}
		for _, e := range s.Entries {
			if e.Line == p.Line {
				cut[e] = true
			}
		}
	}
	return cut
}
