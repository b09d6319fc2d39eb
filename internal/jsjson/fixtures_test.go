package jsjson_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"piweb/internal/jsjson"
	"piweb/internal/pitest"
)

// notStringified lists fixture folders and lines that were not written by
// JSON.stringify, so they are only checked for validity and stable
// canonical forms. Both come from the Python harness that recorded the RPC
// fixtures (json.dumps, with ", " and ": " separators):
//   - the transcripts wrap pi's messages in records of their own;
//   - the s08 cwd-gone session had its header rewritten to point at a
//     missing cwd before pi was started on it.
var notStringified = []string{
	"rpc-0.73.1/transcripts/",
	"rpc-0.73.1/sessions/s08/cwd-gone.jsonl:1",
	"rpc-1.6.0/transcripts/",
}

// notJSON lists the lines a transcript sent pi on purpose as invalid JSON
// (pi's answer to them is what was recorded).
var notJSON = map[string]bool{
	"rpc-1.6.0/transcripts/main/stdin.jsonl:76": true,
}

func fixtureLines(t testing.TB) map[string][][]byte {
	t.Helper()
	fixturesDir := pitest.FixturesDir(t)
	files := map[string][][]byte{}
	err := filepath.WalkDir(fixturesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(fixturesDir, path)
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		files[rel] = lines
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestFixturesRoundTrip(t *testing.T) {
	files := fixtureLines(t)
	var n int
	for rel, lines := range files {
		for i, line := range lines {
			if notJSON[fmt.Sprintf("%s:%d", rel, i+1)] {
				continue
			}
			stringified := true
			for _, skip := range notStringified {
				if strings.HasPrefix(rel, skip) && !strings.Contains(skip, ":") || skip == fmt.Sprintf("%s:%d", rel, i+1) {
					stringified = false
				}
			}
			if !jsjson.Valid(line) {
				t.Errorf("%s:%d: Valid = false", rel, i+1)
				continue
			}
			v, err := jsjson.Parse(line)
			if err != nil {
				t.Errorf("%s:%d: %v", rel, i+1, err)
				continue
			}
			got := jsjson.Stringify(v)
			if !stringified {
				// Still check that the canonical form is stable.
				if again, _ := jsjson.Canonical(got); !bytes.Equal(again, got) {
					t.Errorf("%s:%d: Canonical not idempotent", rel, i+1)
				}
				continue
			}
			n++
			if !bytes.Equal(got, line) {
				t.Errorf("%s:%d: Stringify(Parse(line)) differs\n got %.300s\nwant %.300s", rel, i+1, got, line)
			}
			if !jsjson.IsCanonical(line) {
				t.Errorf("%s:%d: IsCanonical = false", rel, i+1)
			}
		}
	}
	t.Logf("%d files, %d pi-written lines round-tripped", len(files), n)
}
