package pisession

import (
	"bytes"
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"piweb/internal/testkit"
)

const (
	wHdr  = `{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}`
	wMsg  = `{"type":"message","id":"a1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}`
	wMsg2 = `{"type":"message","id":"a2","parentId":"a1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"user","content":"again","timestamp":2}}`
)

// writeFile writes content to a session file in a new folder and parses it.
func writeFile(t *testing.T, content string) (string, *Session) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	testkit.WriteFile(t, path, content)
	s := readSession(t, path)
	return path, s
}

// growBy appends line as another writer would: through its own parse.
func growBy(t testing.TB, path, line string) {
	t.Helper()
	other, err := ReadFile(path)
	if err == nil {
		_, err = Append(path, other, []byte(line))
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestAppend(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		grow          string // what another writer appends after the parse
		want          string // the file after the append
		err           error
		line          string // what is appended; wMsg2 when ""
	}{
		{"after the leaf", wHdr + "\n" + wMsg + "\n", "", wHdr + "\n" + wMsg + "\n" + wMsg2 + "\n", nil, ""},
		{"torn last line kept apart", wHdr + "\n" + wMsg + "\n{\"type\":", "", wHdr + "\n" + wMsg + "\n{\"type\":\n" + wMsg2 + "\n", nil, ""},
		{"grown meanwhile", wHdr + "\n" + wMsg + "\n", "{}", wHdr + "\n" + wMsg + "\n{}\n", ErrChanged, ""},
		{"no header", wMsg + "\n", "", wMsg + "\n", ErrNoHeader, ""},
		{"two lines", wHdr + "\n", "", wHdr + "\n", errNotOneObject, wMsg + "\n" + wMsg2},
		{"not an object", wHdr + "\n", "", wHdr + "\n", errNotOneObject, "[1]"},
		{"older version", strings.Replace(wHdr, `"version":3,`, "", 1) + "\n", "", strings.Replace(wHdr, `"version":3,`, "", 1) + "\n", ErrOldVersion, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, s := writeFile(t, tc.content)
			if tc.grow != "" {
				growBy(t, path, tc.grow)
			}
			line := cmp.Or(tc.line, wMsg2)
			e, err := Append(path, s, []byte(line))
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
			if err == nil && (e.ID != "a2" || s.Leaf() != e || s.Size != int64(len(tc.want))) {
				t.Errorf("entry %q, leaf %v, size %d: s does not hold the new entry", e.ID, s.Leaf(), s.Size)
			}
		})
	}
}

// shortFile is a file whose next Write writes only half its buffer and
// then fails as a full disk does; grow, when set, runs in between (another
// process appending).
type shortFile struct {
	*os.File
	grow func()
}

func (f *shortFile) Write(b []byte) (int, error) {
	n, _ := f.File.Write(b[:len(b)/2])
	if f.grow != nil {
		f.grow()
	}
	return n, syscall.ENOSPC
}

// TestAppendShortWrite: an append that fails half-way (issue 17.8) leaves
// the file as it was and says so, unless another process appended after
// the partial write: then nothing is cut (its line must not be lost).
func TestAppendShortWrite(t *testing.T) {
	const other = `{"other":"writer"}`
	for _, tc := range []struct {
		name string
		grow bool
		said string
	}{
		{"undone", false, "removed"},
		{"kept when grown", true, "remains"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, s := writeFile(t, wHdr+"\n")
			f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sf := &shortFile{File: f}
			if tc.grow {
				sf.grow = func() { growBy(t, path, other) }
			}
			_, err = appendTo(sf, s.Size, []byte(wMsg))
			if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), tc.said) {
				t.Errorf("err = %v, want ENOSPC saying the partial line %s", err, tc.said)
			}
			got, _ := os.ReadFile(path)
			if want := wHdr + "\n"; !tc.grow && string(got) != want {
				t.Errorf("file = %q, want it unchanged", got)
			}
			if tc.grow && !bytes.Contains(got, []byte(other)) {
				t.Errorf("file = %q, want the other writer's line kept", got)
			}
		})
	}
}

// TestFork: the new file sits beside the source under pi's name, its
// header names the source as parentSession, and its context is the
// source's at the entry.
func TestFork(t *testing.T) {
	path, s := writeFile(t, wHdr+"\n"+wMsg+"\n"+wMsg2+"\n")
	forked, err := Fork(path, s, "a1")
	if err != nil {
		t.Fatal(err)
	}
	f := readSession(t, forked)
	if filepath.Dir(forked) != filepath.Dir(path) || IDFromFileName(forked) != mustString(f.Header, "id") {
		t.Errorf("fork at %s, id %s: want pi's file name beside %s", forked, mustString(f.Header, "id"), path)
	}
	if p, _ := f.Header.String("parentSession"); p != path {
		t.Errorf("parentSession = %q, want %q", p, path)
	}
	got, want := f.Context(""), s.Context("a1")
	if len(got.EntryIDs) != 1 || got.EntryIDs[0] != want.EntryIDs[0] {
		t.Errorf("fork's context %v, want %v", got.EntryIDs, want.EntryIDs)
	}
	if _, err := Fork(path, s, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork at a missing entry: %v, want ErrNotFound", err)
	}
}

// TestCreateRefusesNoHeader: content that is not a session is not written.
func TestCreateRefusesNoHeader(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir, []byte(wMsg+"\n")); !errors.Is(err, ErrNoHeader) {
		t.Errorf("err = %v, want ErrNoHeader", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
}

func mustString(e *Entry, key string) string {
	v, _ := e.String(key)
	return v
}
