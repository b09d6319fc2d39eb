package ops

import (
	"context"
	"os"
	"testing"

	"piweb/internal/apitype"
	"piweb/internal/naming"
)

// offlineAgent renames in the file: no worker runs.
type offlineAgent struct{}

func (offlineAgent) Rename(_ context.Context, _, _ string, offline func() error) error {
	return offline()
}

// TestForkAtFirstMessageNamed: a fork at a session's first message holds
// no message, so it has no title until its first run ends; then it is
// named from the message sent, as a created session is (issue 25 item 8).
func TestForkAtFirstMessageNamed(t *testing.T) {
	o, m := newOps(t)
	o.Names = naming.New(naming.Options{Catalog: o.Cat, Agent: offlineAgent{}, Store: o.Store})
	fk, err := o.Fork(m, apitype.ForkRequest{EntryID: firstUser(t, o, m.Path)})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fk.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, werr := f.WriteString(`{"type":"message","id":"f1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",` +
		`"message":{"role":"user","content":"rewrite the parser in two passes","timestamp":1}}` + "\n")
	if err := f.Close(); err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	o.Names.FirstRunEnded(fk.ID)
	o.Cat.Refresh(fk.Path)
	if nm, _ := o.Cat.ByPath(fk.Path); nm.Name != "rewrite the parser in two passes" {
		t.Errorf("fork named %q, want the message it was sent", nm.Name)
	}
}
