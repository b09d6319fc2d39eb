package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{``, nil},
		{`"default"`, nil},
		{`"none"`, []string{}},
		{`"read-only"`, []string{"read", "grep", "find", "ls"}},
		{`"all"`, []string{"read", "bash", "edit", "write", "grep", "find", "ls"}},
		{`["read","bash"]`, []string{"read", "bash"}},
		{`[]`, []string{}},
	}
	for _, tt := range tests {
		got, err := toolList(json.RawMessage(tt.in))
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || (tt.want == nil) != (got == nil) {
			t.Errorf("%s: (-want +got)\n%s nil: %v", tt.in, diff, got == nil)
		}
	}
}
