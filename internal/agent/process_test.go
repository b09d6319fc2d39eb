package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"piweb/internal/fakellm"
)

// TestStopEscalates checks the SIGTERM → SIGKILL path on a process group
// whose leader ignores SIGTERM (pi never does; its children might).
func TestStopEscalates(t *testing.T) {
	cmd := exec.Command("sh", "-c", `trap "" TERM; sleep 30 & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	time.Sleep(100 * time.Millisecond) // let the trap be set
	start := time.Now()
	stop(context.Background(), cmd.Process.Pid, exited, 300*time.Millisecond)
	if d := time.Since(start); d < 300*time.Millisecond || d > 5*time.Second {
		t.Errorf("stopped after %v, want SIGKILL after the 300ms grace", d)
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit %v, want SIGKILL", cmd.ProcessState)
	}
}

func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}

// TestLiveShutdownKillsTools: closing the supervisor while a bash tool runs
// stops pi and the tool's process.
func TestLiveShutdownKillsTools(t *testing.T) {
	l := newLive(t, nil)
	pidFile := filepath.Join(t.TempDir(), "pid")
	l.llm.Enqueue(fakellm.Tools(fakellm.Bash("echo $$ > " + pidFile + "; sleep 60")))
	l.w.Prompt(l.ctx, "run", PromptOptions{})
	l.rec.waitType(t, 0, EvToolStart)
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if pid == 0 || !alive(pid) {
		t.Fatalf("tool shell pid %d not running", pid)
	}
	start := time.Now()
	l.s.Close(l.ctx)
	t.Logf("closed in %v", time.Since(start))
	if l.w.Client().Exit() == nil {
		t.Fatal("pi still running after Close")
	}
	time.Sleep(200 * time.Millisecond)
	if alive(pid) {
		syscall.Kill(pid, syscall.SIGKILL) // our own tool process
		t.Error("tool process survived shutdown")
	}
	i := l.rec.waitType(t, 0, EvExit)
	if got := fieldString(l.rec.snapshot()[i].Raw, "reason"); got != "shutdown" {
		t.Errorf("exit reason %q", got)
	}
}
