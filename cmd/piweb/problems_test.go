package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/index"
)

// TestCheckAndIndexStatusAgree runs piweb check and piweb index --status
// over testdata/damaged, one file for each kind of problem: both must
// report the same problems, every kind among them (issue 25 item 8).
func TestCheckAndIndexStatusAgree(t *testing.T) {
	agent, err := filepath.Abs(filepath.Join("testdata", "damaged"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir(), "PI_CODING_AGENT_DIR": agent}
	out, errs, code := runCLI(t, env, "check")
	if code != 1 {
		t.Fatalf("check: exit %d, want 1\n%s%s", code, out, errs)
	}
	checked := strings.Split(strings.TrimSpace(out), "\n")
	if _, errs, code := runCLI(t, env, "index"); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errs)
	}
	out, errs, code = runCLI(t, env, "index", "--status", "--json")
	if code != 0 {
		t.Fatalf("index --status: exit %d: %s", code, errs)
	}
	var st index.Status
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	var status []string
	kinds := map[string]bool{}
	for _, f := range st.Problems {
		for _, p := range f.Problems {
			status = append(status, fmt.Sprintf("%s:%d: %s: %s", f.Path, p.Line, p.Kind, p.Message))
			kinds[string(p.Kind)] = true
		}
	}
	slices.Sort(checked)
	slices.Sort(status)
	if diff := cmp.Diff(checked, status); diff != "" {
		t.Errorf("check and index --status differ (-check +status):\n%s", diff)
	}
	for _, k := range []string{"truncated", "orphan", "cycle", "duplicate-id", "missing-id", "crlf", "malformed", "null-line", "non-object"} {
		if !kinds[k] {
			t.Errorf("no %s problem reported", k)
		}
	}
}
