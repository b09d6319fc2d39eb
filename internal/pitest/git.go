package pitest

import (
	"os/exec"
	"testing"
)

// Git runs git with args in dir for a test's setup, as user t <t@t>,
// failing the test if it fails; where git is not installed the test is
// Missing it.
func Git(t testing.TB, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		Missing(t, "git not on PATH")
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
