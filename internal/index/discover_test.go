package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/pisession"
)

// TestScan checks that scan lists the tree's files exactly as
// pisession.SessionFiles does (pi's order), adds a flat dir's files once,
// and that its stats are os.Stat's, symbolic links followed.
func TestScan(t *testing.T) {
	agent := t.TempDir()
	tree := filepath.Join(agent, "sessions")
	for _, d := range []string{"--b--", "--a--", "--c--"} {
		os.MkdirAll(filepath.Join(tree, d), 0o755)
		for _, f := range []string{"z.jsonl", "a.jsonl", "m.jsonl", "notes.txt"} {
			os.WriteFile(filepath.Join(tree, d, f), []byte(d+f), 0o644)
		}
	}
	os.Mkdir(filepath.Join(tree, "--a--", "dir.jsonl"), 0o755) // read and reported, as pi would try
	os.WriteFile(filepath.Join(tree, "stray.jsonl"), nil, 0o644)
	os.Symlink(filepath.Join(tree, "--b--", "a.jsonl"), filepath.Join(tree, "--c--", "link.jsonl"))
	flat := t.TempDir()
	os.WriteFile(filepath.Join(flat, "f.jsonl"), []byte("x"), 0o644)
	rs := []root{{dir: tree, tree: true}, {dir: flat}, {dir: filepath.Join(tree, "--a--")}}

	files, dirs := scan(rs, true)
	var treePaths, flatPaths []string
	for _, f := range files {
		if f.listAll {
			treePaths = append(treePaths, f.path)
		} else {
			flatPaths = append(flatPaths, f.path)
		}
		fi, err := os.Stat(f.path)
		if err != nil || !f.statOK || f.fid != idOf(fi) {
			t.Errorf("%s: scan stat %+v %v, os.Stat %+v %v", f.path, f.fid, f.statOK, idOf(fi), err)
		}
	}
	if diff := cmp.Diff(pisession.SessionFiles(agent), treePaths); diff != "" {
		t.Errorf("tree files differ from pisession.SessionFiles (-want +got):\n%s", diff)
	}
	if want := []string{filepath.Join(flat, "f.jsonl")}; !cmp.Equal(want, flatPaths) {
		t.Errorf("flat files %v, want %v (a flat dir that is a project folder adds nothing)", flatPaths, want)
	}
	if len(dirs) != 6 {
		t.Errorf("dirs to watch: %v", dirs)
	}
	plain, _ := discover(rs)
	for i := range plain {
		if plain[i].path != files[i].path || plain[i].statOK {
			t.Fatalf("discover differs from scan at %d: %+v, %+v", i, plain[i], files[i])
		}
	}
}
