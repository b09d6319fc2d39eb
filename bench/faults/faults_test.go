package faults

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// TestFaults runs every scenario and prints the report (bench/faults.sh).
func TestFaults(t *testing.T) {
	if os.Getenv("PIWEB_FAULTS") == "" {
		t.Skip("heavy: set PIWEB_FAULTS=1 (bench/faults.sh)")
	}
	if os.Geteuid() != 0 {
		pitest.Missing(t, "the fault harness mounts tmpfs, which needs root")
	}
	h := &harness{t: t, bin: buildPiweb(t), n: testkit.EnvInt("PIWEB_FAULTS_N", 20)}
	var ts []*tally
	if os.Getenv("PIWEB_FAULTS_ONLY") == "lineage" {
		ts = append(ts, h.killLineage())
	} else {
		for _, op := range []string{"append-rename", "append-label", "fork", "migrate", "repair"} {
			ts = append(ts, h.killCLI(op))
		}
		ts = append(ts, h.killServe()...)
		ts = append(ts, h.killLineage(), h.fullDisk(), h.readOnly(), h.twoWriters())
	}
	out := report(t, ts)
	fmt.Print(out)
	if os.Getenv("PIWEB_FAULTS_STRICT") != "" {
		for _, x := range ts {
			if x.damage() > 0 {
				t.Errorf("%s: damage (see the report)", x.name)
			}
		}
	}
}

type harness struct {
	t   *testing.T
	bin string
	n   int
}

func buildPiweb(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "piweb")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/piweb")
	cmd.Dir = pitest.ModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// newAgent makes an agent dir with one project folder.
func (h *harness) newAgent(root string) (agent, proj string) {
	agent = filepath.Join(root, "agent")
	proj = filepath.Join(agent, "sessions", "--tmp-proj--")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		h.t.Fatal(err)
	}
	return agent, proj
}

func (h *harness) command(agent string, args ...string) *exec.Cmd {
	cmd := exec.Command(h.bin, args...)
	home := filepath.Dir(agent)
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agent, "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// runKill runs cmd and kills it with SIGKILL after delay (unless it ended
// first); it says whether the kill ended it and whether it failed alone.
func runKill(cmd *exec.Cmd, delay time.Duration) (killed, failed bool) {
	if err := cmd.Start(); err != nil {
		return false, true
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return false, err != nil
	case <-time.After(delay):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err := <-done
		if ee, ok := err.(*exec.ExitError); ok {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return true, false
			}
		}
		return false, err != nil
	}
}

// cliArgs is the command line of a mutating operation on path.
func cliArgs(op, path string, i int) []string {
	switch op {
	case "append-rename":
		return []string{"rename", path, fmt.Sprintf("name %d", i)}
	case "append-label":
		return []string{"label", path, "00000005", fmt.Sprintf("label %d", i)}
	case "fork":
		return []string{"fork", path, "--entry", "00000063"}
	case "migrate":
		return []string{"migrate", path}
	case "repair":
		return []string{"check", "--repair", "--cwd", "/tmp/proj", path}
	}
	panic(op)
}

// opFile makes the file an operation works on: version 1 for migrate, a
// garbage line in the middle for repair; about 400 KB so rewrites last.
func opFile(op, proj string) string {
	version := 3
	if op == "migrate" {
		version = 1
	}
	path, _ := genSession(proj, version, 200, 2000, "")
	if op == "repair" {
		b, _ := os.ReadFile(path)
		i := nthLine(b, 50)
		b = append(b[:i:i], append([]byte("garbage {\n"), b[i:]...)...)
		os.WriteFile(path, b, 0o644)
	}
	return path
}

func nthLine(b []byte, n int) int {
	for i, c := range b {
		if c == '\n' {
			if n--; n == 0 {
				return i + 1
			}
		}
	}
	return len(b)
}

// killCLI kills the piweb command of op at a random moment of its run,
// n times, each on a fresh file, and checks every file afterwards.
func (h *harness) killCLI(op string) *tally {
	agent, proj := h.newAgent(h.t.TempDir())
	tl := &tally{name: "kill -9 " + op}
	start := time.Now()
	h.command(agent, cliArgs(op, opFile(op, proj), 0)...).Run()
	dur := time.Since(start)
	tl.note("an uninterrupted run takes %v; kills uniform in [0, 1.2x]", dur.Round(time.Millisecond))
	type file struct {
		path string
		orig []byte
		bad  int
	}
	var files []file
	for i := range h.n {
		path := opFile(op, proj)
		orig, _ := os.ReadFile(path)
		files = append(files, file{path, orig, badLines(orig)})
		killed, failed := runKill(h.command(agent, cliArgs(op, path, i+1)...), time.Duration(rand.Int64N(int64(dur)*6/5+1)))
		tl.runs++
		if killed {
			tl.killed++
		}
		if failed {
			tl.failed++
		}
	}
	known := map[string]bool{}
	for _, f := range files {
		known[f.path] = true
		tl.files++
		b, _ := os.ReadFile(f.path)
		if intactSomewhere(f.path, f.orig) {
			tl.intact++
		}
		if extra := badLines(b) - f.bad; extra > 0 {
			tl.torn += extra
		}
	}
	for _, p := range sessionFiles(agent) { // forks and anything else written
		if !known[p] {
			b, _ := os.ReadFile(p)
			tl.torn += badLines(b)
		}
	}
	if raw := ageTemps(agent); raw > 0 {
		tl.note("%d temp files before piweb's next start, some time later (which removes them)", raw)
		h.startServe(agent).stop()
	}
	tl.leftovers, tl.backups = debris(agent, tl)
	return tl
}
