package index

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"piweb/internal/corpus"
	"piweb/internal/pitest"
	"piweb/pisession"
)

// checkFast compares the fast listing parse with the session parser's.
func checkFast(t *testing.T, data []byte, atEOF bool) {
	t.Helper()
	slow := parseChunk(data, 0, 0, atEOF)
	var recs []rec
	fast := listChunk(data, 0, 0, atEOF, func(r rec, _ *msg) { recs = append(recs, r) })
	var want []rec
	for _, e := range slow.entries {
		want = append(want, recOf(e))
	}
	type result struct {
		Body            body
		Consumed, Lines int
		Recs            []rec
		Problems        []pisession.Problem
	}
	var defects []pisession.Problem
	for _, p := range slow.problems {
		if !p.IsNote() {
			defects = append(defects, p)
		}
	}
	w := result{slow.body, slow.consumed, slow.lines, want, defects}
	var fdefects []pisession.Problem
	for _, p := range fast.problems {
		if !p.IsNote() {
			fdefects = append(fdefects, p)
		}
	}
	g := result{fast.body, fast.consumed, fast.lines, recs, fdefects}
	if w.Body.Dropped && g.Body.Dropped {
		w.Body, g.Body = body{Dropped: true}, body{Dropped: true} // nothing else is used
	}
	if diff := cmp.Diff(w, g); diff != "" {
		t.Fatalf("%q: fast parse differs (-slow +fast):\n%s", data, diff)
	}
	// The listing alone (a cold ls: no records, no message fields) reads
	// the same body.
	alone := listChunk(data, 0, 0, atEOF, nil)
	a := result{alone.body, alone.consumed, alone.lines, recs, fdefects}
	if a.Body.Dropped && fast.body.Dropped {
		a.Body = body{Dropped: true}
	}
	if diff := cmp.Diff(g, a); diff != "" {
		t.Fatalf("%q: the listing alone differs (-with records +alone):\n%s", data, diff)
	}
	checkText(t, data, atEOF, slow)
}

// checkText compares the text pass's chunk with the session parser's
// (slow, parseChunk's) and its msgs with entryMsg's.
func checkText(t *testing.T, data []byte, atEOF bool, slow chunk) {
	t.Helper()
	for _, tools := range []bool{false, true} {
		c, msgs := textChunk(data, 0, 0, atEOF, tools, nil)
		var want []*msg
		for _, e := range slow.entries {
			want = append(want, entryMsg(e, tools))
		}
		wb, gb := slow.body, c.body
		if wb.Dropped && gb.Dropped {
			wb, gb = body{Dropped: true}, body{Dropped: true} // nothing else is used
		}
		if diff := cmp.Diff(wb, gb); diff != "" {
			t.Fatalf("%q: the text pass's body differs (-slow +text):\n%s", data, diff)
		}
		opt := cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".usage" }, cmp.Ignore())
		if diff := cmp.Diff(want, msgs, cmp.AllowUnexported(msg{}), opt); diff != "" || len(c.entries) != len(slow.entries) {
			t.Fatalf("%q: the text pass's messages differ (-entryMsg +textChunk):\n%s", data, diff)
		}
		var wm, gm meta
		for i, e := range slow.entries {
			wm.add(recOf(e), want[i])
			gm.add(textRec(e), msgs[i])
		}
		wm.finish()
		gm.finish()
		all := cmp.Exporter(func(reflect.Type) bool { return true })
		if diff := cmp.Diff(wm, gm, all, cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("%q: the text pass's metadata differs (-recOf +textRec):\n%s", data, diff)
		}
	}
}

func TestFastPathEdgeFiles(t *testing.T) {
	for n, c := range edgeFiles {
		t.Run(n, func(t *testing.T) {
			checkFast(t, []byte(c), false)
			checkFast(t, []byte(c), true)
		})
	}
}

func TestFastPathCorpus(t *testing.T) {
	dir := genCorpus(t, corpus.Options{Files: 10, Bytes: 1 << 20, Seed: 5})
	for _, f := range pisession.SessionFiles(dir) {
		b, _ := os.ReadFile(f)
		checkFast(t, b, false)
	}
	for _, f := range []string{"v3-basic-0.73.1.jsonl", "v3-forkFrom-0.73.1.jsonl"} {
		if b, err := os.ReadFile(filepath.Join(pitest.FixturesDir(t), "pi-0.73.1", f)); err == nil {
			checkFast(t, b, false)
		}
	}
}

func FuzzListChunk(f *testing.F) {
	for _, c := range edgeFiles {
		f.Add([]byte(c))
	}
	for _, l := range []string{usr, asst, name,
		`{"type":"message","id":"x","parentId":"y","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"a"},null]}}`,
		`{"type":"message","id":"x","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text"},5,"s"],"timestamp":3}}`,
		`{"type":"message","id":"x","message":{"role":"assistant","content":{},"timestamp":-1}}`,
		`{"type":"session_info","id":"x","name":" \u00a0 x "}`,
		`{"type":"label","id":"l","parentId":"x","targetId":"x","label":"a"}`,
		// pi 1.6: falsy lines skipped, readline's lone CR ends a line.
		"null\nfalse\n0\n\"\"\n" + usr,
		`{"type":"message",` + "\r" + `"id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}`,
		usr + "\r" + asst,
		// numbers beyond a double's range: Infinity to JSON.parse
		`{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"a","timestamp":1e400}}`,
		`{"type":"message","id":"x","parentId":null,"timestamp":1e400,"message":{"role":"user","content":"a","timestamp":-1e400}}`,
		`{"type":"message","id":"x","parentId":null,"timestamp":"t","message":{"role":"user","content":"a","timestamp":1e300}}`,
		`{"type":"usage","id":"u","parentId":null,"timestamp":"t","kind":"cache_warm","provider":"p","model":"m","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"total":0.1}}}`} {
		f.Add([]byte(hdr + "\n" + l + "\n"))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if strings.Contains(string(b), "\x00") && len(b) > 1<<16 {
			return
		}
		checkFast(t, b, false)
		checkFast(t, b, true)
	})
}

func TestParseNumber(t *testing.T) {
	for _, in := range []string{"0", "7", "1767624729790", "999999999999999", "1000000000000000", "12345678901234567890",
		"-1", "-0", "1.5", "1e3", "1E+2", "0.1", "123456789012345.5", ""} {
		got, err := parseNumber([]byte(in))
		want, werr := strconv.ParseFloat(in, 64)
		if got != want || (err == nil) != (werr == nil) || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("parseNumber(%q) = %v, %v; want %v, %v", in, got, err, want, werr)
		}
	}
}

func TestHasDupKey(t *testing.T) {
	long := strings.Repeat("k", 65) // its length is 1 mod 64, as "a"'s
	for _, tc := range []struct {
		keys []string
		want bool
	}{
		{nil, false},
		{[]string{"type"}, false},
		{[]string{"type", "id", "parentId", "timestamp", "message"}, false},
		{[]string{"model", "usage", "stopReason", "responseId"}, false}, // same lengths, other keys
		{[]string{"type", "id", "type"}, true},
		{[]string{"model", "usage", "model"}, true},
		{[]string{"a", "b", "c", "d", "usage", "x", "usage"}, true},
		{[]string{"a", long}, false},
		{[]string{long, "a", long}, true},
		{[]string{"", "x", ""}, true},
	} {
		var ms []span
		for _, k := range tc.keys {
			ms = append(ms, span{key: []byte(k)})
		}
		if got := hasDupKey(ms); got != tc.want {
			t.Errorf("hasDupKey(%q) = %v, want %v", tc.keys, got, tc.want)
		}
	}
}
