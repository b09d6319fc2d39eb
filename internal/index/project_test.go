package index

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"piweb/internal/fakellm"
	"piweb/internal/fakellm/fakellmtest"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestProjectSessionDir runs real pi in a project folder, once as is
// (the session goes to the agent dir's sessions tree) and once with a
// project settings file naming a relative sessionDir, and checks where pi
// wrote, then that the index finds both sessions, the second through the
// cwd of the first, while ls lists only the first, as pi's listAll does.
func TestProjectSessionDir(t *testing.T) {
	t.Parallel() // long under -race; shares nothing (TestFilterExact, which sets the tunables, is not parallel)
	agent, work := t.TempDir(), t.TempDir()
	fakellmtest.Serve(t, agent, fakellm.Options{Log: testkit.Log(t)})
	runPi := func() {
		cmd := exec.Command(pitest.PiBin(t), "--no-context-files", "-p", "hello")
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agent, "PI_OFFLINE=1", "PI_CODING_AGENT_SESSION_DIR=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pi: %v\n%s", err, out)
		}
	}
	runPi()
	testkit.WriteFile(t, filepath.Join(work, ".pi", "settings.json"), `{"sessionDir": "project-sessions"}`)
	runPi()
	flat, _ := filepath.Glob(filepath.Join(work, "project-sessions", "*.jsonl"))
	tree, _ := filepath.Glob(filepath.Join(agent, "sessions", "*", "*.jsonl"))
	if len(flat) != 1 || len(tree) != 1 {
		t.Fatalf("pi wrote %v in the project's sessionDir and %v in the tree, want one in each", flat, tree)
	}

	ix := openTest(t, agent)
	checkList(t, ix, agent) // the first ls already finds the project dir
	ms, err := ix.Sessions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range ms {
		paths = append(paths, m.Info.Path)
	}
	if !slices.Contains(paths, flat[0]) || !slices.Contains(paths, tree[0]) {
		t.Fatalf("indexed %v, want %s and %s", paths, flat[0], tree[0])
	}
	// A new session there is noticed by the next ls, whether quick or not.
	if _, ok := quick(ix); !ok {
		t.Fatal("no quick answer with nothing changed")
	}
	runPi()
	if _, ok := quick(ix); ok {
		t.Fatal("quick answer after a new session in the project's sessionDir")
	}
	checkList(t, ix, agent)
	if st := syncAll(t, ix); st.Files != 3 {
		t.Errorf("sync found %d files, want 3", st.Files)
	}
}
