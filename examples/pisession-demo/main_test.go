package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/pisession"
)

// The session of piweb/pisession's own examples.
var example = filepath.Join("..", "..", "pisession", "testdata", "example", "sessions",
	"--home-user-proj--", "2026-12-01T10-00-00-000Z_019ad8a0-0000-7000-8000-000000000001.jsonl")

func TestPrintContext(t *testing.T) {
	for _, tc := range []struct {
		leaf, want string
	}{
		{"", `session "README work", 9 entries, 0 problems
u0000001 user      Write a README
a0000001 assistant README.md written.
u0000003 user      Make the README shorter
a0000003 assistant Shortened to five lines.
`},
		{"a0000002", `session "README work", 9 entries, 0 problems
u0000001 user      Write a README
a0000001 assistant README.md written.
u0000002 user      Add a LICENSE too
a0000002 assistant LICENSE added.
`},
	} {
		var out bytes.Buffer
		if err := printContext(&out, example, tc.leaf); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("leaf %q:\n%s\nwant:\n%s", tc.leaf, out.String(), tc.want)
		}
	}
}

// TestAppendThenFork uses the library's writes from outside its module: a
// label appended to a copy, then a fork of the labelled branch whose
// context is printed.
func TestAppendThenFork(t *testing.T) {
	data, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), filepath.Base(example))
	os.WriteFile(path, data, 0o644)
	s, err := pisession.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pisession.Append(path, s, s.LabelLine("u0000002", "license")); err != nil {
		t.Fatal(err)
	}
	stale, _ := pisession.ReadFile(example) // not the file appended to
	stale.Size--
	if _, err := pisession.Append(path, stale, stale.NameLine("x")); !errors.Is(err, pisession.ErrChanged) {
		t.Errorf("append with a stale parse: %v, want ErrChanged", err)
	}
	forked, err := pisession.Fork(path, s, "a0000002")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printContext(&out, forked, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "u0000002 user      Add a LICENSE too") {
		t.Errorf("fork's context:\n%s", out.String())
	}
	f, _ := pisession.ReadFile(forked)
	if label, _ := f.LabelOf("u0000002"); label != "license" {
		t.Errorf("fork's label on u0000002 = %q, want the appended one", label)
	}
}
