package pisession

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
)

// sameAsParse fails unless g's Session is what Parse makes of data: the
// same records (every field, unexported ones included, from Dump), ids,
// problems, context, tree and listing.
func sameAsParse(t *testing.T, g *Growing, data []byte) {
	t.Helper()
	want := Parse(data)
	got, ok := g.Session()
	if !ok {
		if !want.Migrated {
			t.Fatalf("Growing refused a file Parse does not migrate")
		}
		return
	}
	if d := cmp.Diff(want.Dump(), got.Dump()); d != "" {
		t.Fatalf("after %d bytes, Growing differs from Parse (-Parse +Growing):\n%s", len(data), d)
	}
}

// TestGrowingMatchesParse feeds real pi files to a Growing in pieces cut
// everywhere (inside lines, at newlines, one byte at a time at the start)
// and checks each state against Parse of the same bytes.
func TestGrowingMatchesParse(t *testing.T) {
	t.Parallel() // one of the package's long tests; they share nothing and run side by side
	files, _ := filepath.Glob("testdata/pi-1.6.0/*.jsonl")
	more, _ := filepath.Glob("testdata/*.jsonl")
	files = append(files, more...)
	if len(files) < 4 {
		t.Fatalf("testdata has %d session files", len(files))
	}
	for _, f := range files {
		data := testkit.ReadFile(t, f)
		// Each check parses the prefix again: about 60 checks a cut size.
		for _, step := range []int{1, 7, 97, len(data)} {
			var g Growing
			for at := 0; at < len(data); {
				n := min(max(step, len(data)/60), len(data)-at)
				if at < 200 {
					n = min(step, len(data)-at) // every cut in the header
				}
				g.Add(data[at : at+n])
				at += n
				sameAsParse(t, &g, data[:at])
			}
		}
	}
}

// TestGrowingSessionsStayPut: a Session returned before an Add does not
// change when more is added (readers hold it while the cache grows).
func TestGrowingSessionsStayPut(t *testing.T) {
	data := []byte(hdr + "\n" + e1 + "\n")
	var g Growing
	g.Add(data)
	before, _ := g.Session()
	want := Parse(data)
	g.Add([]byte(e2 + "\n" + `{"type":"label","id":"l1","parentId":"e1"`))
	g.Session()
	if d := cmp.Diff(want, before, cmp.Exporter(func(reflect.Type) bool { return true })); d != "" {
		t.Fatalf("an earlier Session changed:\n%s", d)
	}
}

// FuzzGrowing: any input, cut at any two points, parses as Parse does.
func FuzzGrowing(f *testing.F) {
	f.Add([]byte(hdr+"\n"+e1+"\n"+e2+"\n"), 10, 40)
	f.Add([]byte("\ufeff"+hdr+"\r\nnull\n42\n{\"type\":\"label\",\"id\":1}\n"+e1[:20]), 3, 70)
	f.Add([]byte(`{"type":"session","version":1,"id":"x"}`+"\n"+`{"type":"message","message":{}}`), 5, 50)
	f.Fuzz(func(t *testing.T, data []byte, a, b int) {
		if len(data) == 0 {
			return
		}
		a, b = abs(a)%(len(data)+1), abs(b)%(len(data)+1)
		a, b = min(a, b), max(a, b)
		var g Growing
		for _, cut := range [][2]int{{0, a}, {a, b}, {b, len(data)}} {
			g.Add(data[cut[0]:cut[1]])
			sameAsParse(t, &g, data[:cut[1]])
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
