package pisession

import (
	"fmt"
	"os"

	"piweb/internal/jsjson"
)

// ProblemKind classifies what is wrong with a line or with the file.
type ProblemKind string

// The kinds of problem Parse reports. Notes (CRLF) are tolerated by pi and
// change nothing; every other kind is a defect that check reports.
const (
	Truncated       ProblemKind = "truncated"        // last line cut short
	Malformed       ProblemKind = "malformed"        // a line that is not JSON
	NullLine        ProblemKind = "null-line"        // a falsy JSON line (null, false, 0, ""); pi skips it
	NonObject       ProblemKind = "non-object"       // a JSON value that is not an object
	MissingHeader   ProblemKind = "missing-header"   // first record is no valid header
	DuplicateHeader ProblemKind = "duplicate-header" // a header after the first record
	UnknownVersion  ProblemKind = "unknown-version"  // a version pi does not know
	Orphan          ProblemKind = "orphan"           // parentId names no entry
	Cycle           ProblemKind = "cycle"            // parentId links loop
	DuplicateID     ProblemKind = "duplicate-id"     // two entries share an id
	MissingID       ProblemKind = "missing-id"       // an object entry without string id
	BOM             ProblemKind = "bom"              // byte order mark: pi 1.6 refuses the file
	CRLF            ProblemKind = "crlf"             // note: CR LF line ending
)

// Problem is one finding of Parse, tied to a 1-based line number.
type Problem struct {
	Line int         `json:"line"`
	Kind ProblemKind `json:"kind"`
	// Message says what is wrong in words; its text is not promised.
	Message string `json:"message"`
}

// IsNote reports whether the problem is harmless: pi reads the file the same
// with or without it.
func (p Problem) IsNote() bool { return p.Kind == CRLF }

// String is the problem as a report line: "line N: kind: message".
func (p Problem) String() string { return fmt.Sprintf("line %d: %s: %s", p.Line, p.Kind, p.Message) }

// clipLen is the most of a line's value a problem quotes: a report on a
// bad line of megabytes must not hold it (issue 21).
const clipLen = 64

// clip returns the value for a problem's message, cut to clipLen bytes
// (at a rune start) with "…" when it is longer.
func clip[T ~string | ~[]byte](v T) string {
	if len(v) <= clipLen {
		return string(v)
	}
	return string(jsjson.Cut(v, clipLen)) + "…"
}

func (s *Session) problem(line int, kind ProblemKind, msg string) {
	s.Problems = append(s.Problems, Problem{Line: line, Kind: kind, Message: msg})
}

// note records a harmless finding once per file.
func (s *Session) note(line int, kind ProblemKind, msg string) {
	for _, p := range s.Problems {
		if p.Kind == kind {
			return
		}
	}
	s.problem(line, kind, msg)
}

// Defects returns the problems that are not notes.
func (s *Session) Defects() []Problem {
	var out []Problem
	for _, p := range s.Problems {
		if !p.IsNote() {
			out = append(out, p)
		}
	}
	return out
}

// checkStructure finds entries without ids, duplicate ids, orphans and
// cycles. Cycles matter most: pi loops forever on them, piweb must not.
// Most files have none of them, which wellLinked proves at a fraction of
// the cost of finding them (one map lookup an entry at most).
func (s *Session) checkStructure() {
	if s.linked = s.wellLinked(); !s.linked {
		s.findDefects()
	}
}

// wellLinked reports that no entry lacks an id or shares one and that
// every parent is found on an earlier line, so no chain of parents can
// loop. It may report false for a file without defects; never true for
// one with them.
func (s *Session) wellLinked() bool {
	// byID holds the keys of Entries: as many as entries when all differ.
	if s.ids().keys() != len(s.Entries) {
		return false
	}
	var prev *Entry
	for _, e := range s.Entries {
		if e.kind != kindObject || e.idK()[0] != 's' {
			return false
		}
		if e.HasParent() {
			p := prev // usually the parent: no lookup
			if p == nil || p.idK() != e.parentK() {
				p = s.byKey(e.parentK())
			}
			if p == nil || p.Line >= e.Line {
				return false
			}
		}
		prev = e
	}
	return true
}

// findDefects reports each structural defect, in line order.
func (s *Session) findDefects() {
	seen := make(map[string]int, len(s.Entries))
	for _, e := range s.Entries {
		if !e.IsObject() {
			continue
		}
		if e.idK()[0] != 's' {
			s.problem(e.Line, MissingID, "entry has no string id")
		} else if line, dup := seen[e.idK()]; dup {
			s.problem(e.Line, DuplicateID, fmt.Sprintf("id %q already used on line %d", clip(e.ID), line))
		}
		seen[e.idK()] = e.Line
		if e.HasParent() && s.byKey(e.parentK()) == nil {
			s.problem(e.Line, Orphan, fmt.Sprintf("parent %s not found", clip(e.Field("parentId"))))
		}
	}
	s.findCycles()
}

// findCycles reports every entry whose parent chain loops, once per loop.
func (s *Session) findCycles() {
	state := make(map[*Entry]uint8, len(s.Entries)) // 1 on current walk, 2 done
	for _, e := range s.Entries {
		var walk []*Entry
		cur := e
		for cur != nil && state[cur] == 0 {
			state[cur] = 1
			walk = append(walk, cur)
			cur = s.parentOf(cur)
		}
		if cur != nil && state[cur] == 1 {
			s.problem(cur.Line, Cycle, fmt.Sprintf("parent links of entry %q loop back to it", clip(cur.ID)))
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
}

// parentOf returns the entry's parent, following pi's path walk.
func (s *Session) parentOf(e *Entry) *Entry {
	if !e.HasParent() {
		return nil
	}
	return s.byKey(e.parentK())
}

// Check reads the session file at path for its problems (Session.Problems,
// Defects); piweb check and piweb index --status both report them. A path
// that is no regular file (a FIFO would block the read) is an error, not a
// parse.
func Check(path string) (*Session, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("check session: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("check session: %s is not a regular file", path)
	}
	return ReadFile(path)
}
