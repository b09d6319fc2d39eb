package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexMerge checks what piweb index says of the text index's merge
// (index.Tidy), after its usual line: a few sessions make no bulk pass,
// so nothing waits for a merge.
func TestIndexMerge(t *testing.T) {
	agent, err := filepath.Abs(filepath.Join("testdata", "damaged"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": t.TempDir(), "XDG_CACHE_HOME": t.TempDir(), "PI_CODING_AGENT_DIR": agent}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"index"}, "\ntext index: complete, merged\n"},
		{[]string{"index", "--merge"}, "\ntext index: complete, merged in "},
		{[]string{"index", "--json"}, `"mergePending":false`},
		{[]string{"index", "--status", "--json"}, `"mergePending":false`},
	} {
		out, errs, code := runCLI(t, env, tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) || !strings.Contains(out, "files") {
			t.Errorf("%v: exit %d, %q, want %q in it; %s", tc.args, code, out, tc.want, errs)
		}
	}
}
