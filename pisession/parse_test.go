package pisession

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/jsjson"
)

const (
	hdr = `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`
	e1  = `{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	e2  = `{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m","timestamp":2}}`
)

func kinds(s *Session) []string {
	var out []string
	for _, p := range s.Problems {
		out = append(out, string(p.Kind))
	}
	return out
}

func ids(s *Session) []string {
	var out []string
	for _, e := range s.Entries {
		out = append(out, e.ID)
	}
	return out
}

// TestParseDamaged feeds the damage pi tolerates (and some it does not) and
// checks what piweb keeps and reports.
func TestParseDamaged(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		header   bool
		ids      []string
		problems []string
	}{
		{"clean", hdr + "\n" + e1 + "\n" + e2 + "\n", true, []string{"a", "b"}, nil},
		{"truncated last line", hdr + "\n" + e1 + "\n" + e2[:40], true, []string{"a"}, []string{"truncated"}},
		{"garbage line", hdr + "\nnot json\n" + e1 + "\n", true, []string{"a"}, []string{"malformed"}},
		{"blank and space lines", hdr + "\n\n   \n\t\n" + e1 + "\n\n", true, []string{"a"}, nil},
		// pi 1.6 does not trim the file: the header line with a BOM is no
		// JSON, so the file has no header and pi refuses it.
		{"bom", "\ufeff" + hdr + "\n" + e1 + "\n", false, []string{"a"}, []string{"bom", "malformed", "missing-header"}},
		{"bom alone on a line", "\ufeff\n" + hdr + "\n" + e1 + "\n", true, []string{"a"}, nil},
		{"falsy lines", hdr + "\nfalse\n0\n\"\"\n-0.0\n" + e1 + "\n", true, []string{"a"}, []string{"null-line", "null-line", "null-line", "null-line"}},
		{"lone CR", hdr + "\n" + e1 + "\r" + e2 + "\n", true, nil, []string{"malformed"}},
		{"crlf", hdr + "\r\n" + e1 + "\r\n", true, []string{"a"}, []string{"crlf"}},
		{"null line", hdr + "\nnull\n" + e1 + "\n", true, []string{"a"}, []string{"null-line"}},
		{"non-object lines", hdr + "\n42\n\"x\"\n[1]\n" + e1 + "\n", true, []string{"", "", "", "a"}, []string{"non-object", "non-object", "non-object"}},
		{"duplicate header", hdr + "\n" + e1 + "\n" + hdr + "\n" + e2 + "\n", true, []string{"a", "b"}, []string{"duplicate-header"}},
		{"missing header", e1 + "\n" + e2 + "\n", false, []string{"a", "b"}, []string{"missing-header"}},
		{"header without id", `{"type":"session","version":3}` + "\n" + e1 + "\n", false, []string{"a"}, []string{"missing-header"}},
		{"unknown version", strings.Replace(hdr, `"version":3`, `"version":9`, 1) + "\n" + e1 + "\n", true, []string{"a"}, []string{"unknown-version"}},
		{"orphan", hdr + "\n" + strings.Replace(e2, `"parentId":"a"`, `"parentId":"zz"`, 1) + "\n", true, []string{"b"}, []string{"orphan"}},
		{"cycle", hdr + "\n" + strings.Replace(e1, `"parentId":null`, `"parentId":"b"`, 1) + "\n" + e2 + "\n", true, []string{"a", "b"}, []string{"cycle"}},
		{"self parent", hdr + "\n" + strings.Replace(e1, `"parentId":null`, `"parentId":"a"`, 1) + "\n", true, []string{"a"}, []string{"cycle"}},
		{"duplicate id", hdr + "\n" + e1 + "\n" + e1 + "\n", true, []string{"a", "a"}, []string{"duplicate-id"}},
		{"trailing nbsp on last line", hdr + "\n" + e1 + "\u00a0", true, nil, []string{"truncated"}},
		{"nbsp inside", hdr + "\n" + e1 + "\u00a0\n" + e2 + "\n", true, []string{"b"}, []string{"malformed", "orphan"}},
		{"empty", "", false, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Parse([]byte(tt.in))
			if got := s.Header != nil; got != tt.header {
				t.Errorf("header = %v, want %v", got, tt.header)
			}
			if diff := cmp.Diff(tt.ids, ids(s)); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.problems, kinds(s)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCycleDoesNotHang builds contexts and trees on a cyclic file: pi hangs
// on it, piweb must answer.
func TestCycleDoesNotHang(t *testing.T) {
	in := hdr + "\n" + strings.Replace(e1, `"parentId":null`, `"parentId":"b"`, 1) + "\n" + e2 + "\n"
	s := Parse([]byte(in))
	if got := len(s.Context("").Messages); got != 2 {
		t.Errorf("context has %d messages, want 2", got)
	}
	if got := len(s.Tree()); got != 0 {
		t.Errorf("tree has %d roots, want 0 (pi finds none either)", got)
	}
}

// TestHugeLine parses a line far beyond bufio.Scanner's default limit.
func TestHugeLine(t *testing.T) {
	big := strings.Repeat("x", 20<<20)
	line := `{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"` + big + `"}}`
	s := Parse([]byte(hdr + "\n" + line + "\n"))
	if len(s.Entries) != 1 || len(s.Entries[0].Raw) != len(line) {
		t.Fatalf("huge line not kept whole")
	}
}

// TestParserFeed checks that feeding a file in arbitrary chunks gives the
// same entries as parsing it whole, and that a partial line waits.
func TestParserFeed(t *testing.T) {
	data := []byte(hdr + "\n" + e1 + "\n" + e2 + "\n")
	for cut := 1; cut < len(data); cut += 7 {
		var p Parser
		n, _ := p.Feed(data[:cut], false)
		if n > cut || (n < cut && bytes.IndexByte(data[n:cut], '\n') >= 0) {
			t.Fatalf("cut %d: consumed %d", cut, n)
		}
		m, _ := p.Feed(data[n:], true)
		if n+m != len(data) {
			t.Fatalf("cut %d: consumed %d of %d", cut, n+m, len(data))
		}
		if diff := cmp.Diff([]string{"a", "b"}, ids(p.S())); diff != "" {
			t.Fatalf("cut %d: %s", cut, diff)
		}
		if p.Offset() != int64(len(data)) {
			t.Fatalf("offset %d", p.Offset())
		}
	}
}

// FuzzParse checks that no input panics, that a parse is the same as
// with each line found before it is scanned, that every record keeps its
// bytes, and that re-parsing the encoded records gives the same records.
func FuzzParse(f *testing.F) {
	f.Add([]byte(hdr + "\n" + e1 + "\n" + e2 + "\n"))
	f.Add([]byte("\ufeff" + hdr + "\r\nnull\n42\n{\"type\":\"label\",\"id\":1}\n" + e1[:20]))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"compaction","id":"c","parentId":"c","firstKeptEntryIndex":0}`))
	f.Add([]byte(hdr + "\r\n" + e1 + "\r\n" + e2 + " \n" + e1 + "\r" + e2 + "\n{\"a\":\n1}\n{ }\n{\"a\":[1 ]}\n{\"x\":\"\n\"}\n{}\r"))
	f.Add([]byte(hdr + "\n" + e1 + "\n" + e2))
	f.Fuzz(func(t *testing.T, data []byte) {
		if diff := cmp.Diff(parseByLine(data).Dump(), parseRecords(data).Dump()); diff != "" {
			t.Fatalf("Parse and the parse of each line found first differ (-line +Parse):\n%s", diff)
		}
		s := Parse(data)
		for _, r := range s.records {
			if !s.Migrated && !bytes.Contains(data, r.Raw) {
				t.Fatalf("record bytes not from input: %q", r.Raw)
			}
		}
		s.Tree()
		s.Context("")
		s.Info("x", timeZero)
		again := Parse(s.Encode())
		if len(again.records) != len(s.records) {
			t.Fatalf("re-parse: %d records, want %d", len(again.records), len(s.records))
		}
	})
}

// parseByLine is parseRecords with every line found before it is
// scanned, as the lines it scans first (Parser.compact) would be
// otherwise. (Not Parse: migrating an old file draws random ids.)
func parseByLine(data []byte) *Session {
	p := Parser{byLine: true}
	p.presize(data)
	p.parse(data, true)
	s := p.S()
	s.Size = int64(len(data))
	return s
}

// FuzzScanMatchesValid checks the scanner against jsjson.Valid, which is
// itself checked against Node's JSON.parse: a line is a record exactly when
// JavaScript can parse it.
func FuzzScanMatchesValid(f *testing.F) {
	for _, s := range []string{e1, e2, `{"a":"\\"}`, `{"a":"\\\\"}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"x` + "\t" + `"}`,
		`{"a":"\\\"\\"}`, `[1,2,{"b":"\u00e9\ud83d\ude00"}]`, `{"a":1,}`, ` {"a":"12345678\\n12345678\\t"} `, `"\/"`, `-0.5e+7`, `01`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, ok := scanRecord(b, nil, new([]member))
		if want := jsjson.Valid(b); ok != want {
			t.Fatalf("scanRecord(%q) = %v, JSON.parse accepts: %v", b, ok, want)
		}
	})
}

// TestProblemsClipValues checks that a problem quotes at most a short
// prefix of a huge value (issue 21: a report on a bad line of megabytes
// held the line).
func TestProblemsClipValues(t *testing.T) {
	huge := strings.Repeat("7", 1<<20)
	lines := []string{
		`{"type":"session","version":` + huge + `,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`,
		"0." + strings.Repeat("0", 1<<20), // a falsy number
		`{"type":"label","id":"` + huge + `","parentId":"8` + huge + `","timestamp":"2025-01-01T00:00:01.000Z"}`,
		`{"type":"label","id":"` + huge + `","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z"}`,
	}
	s := Parse([]byte(strings.Join(lines, "\n") + "\n"))
	kinds := map[ProblemKind]bool{}
	for _, p := range s.Problems {
		kinds[p.Kind] = true
		if len(p.Message) > 200 {
			t.Errorf("%s problem of %d bytes: %.100s…", p.Kind, len(p.Message), p.Message)
		}
	}
	for _, k := range []ProblemKind{UnknownVersion, NullLine, Orphan, DuplicateID} {
		if !kinds[k] {
			t.Errorf("no %s problem in %v", k, kinds)
		}
	}
}
