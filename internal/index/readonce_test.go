package index

import (
	"context"
	"testing"

	"piweb/internal/corpus"
	"piweb/internal/session"
)

// TestTextPassReadsEachByteOnce: after the listing, the text pass reads
// every byte of the corpus once (issue 24 item 3), a big file's parts
// included: each part takes over the bytes the one before read past its
// last line (it read a 64 KB probe for the part's first line end, then
// the part, before: 2.9x the corpus for a cold index of small files).
func TestTextPassReadsEachByteOnce(t *testing.T) {
	dir := t.TempDir()
	if _, err := corpus.Generate(dir, corpus.Options{Files: 20, Bytes: 1 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	writeBig(t, dir, 20<<20) // three parts of textPart, lines of 1 MB
	size := corpusBytes(session.SessionFiles(dir))
	ix := openTest(t, dir)
	if _, err := ix.Sync(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	before := ix.BytesRead()
	syncAll(t, ix)
	if got := ix.BytesRead() - before; got != size {
		t.Errorf("text pass read %d bytes of a %d-byte corpus, want each byte once", got, size)
	}
	if got := search(t, ix, Query{Text: "read the big file"}); !got["u0"] {
		t.Error("the big file's text is not searchable")
	}
}
