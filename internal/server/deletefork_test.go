package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/apitype"
	"piweb/internal/client"
	"piweb/internal/sessionstore"
	"piweb/internal/testkit"
	"piweb/pisession"
)

// Deleting, restoring, forking and cloning sessions through the API, and
// the lineage that deletes re-point.

// TestDeleteRestore deletes a session into the trash and restores it,
// with the trash on the session's file system and on another one (a
// project's own session folder may be on another disk than the agent dir).
func TestDeleteRestore(t *testing.T) {
	t.Run("same file system", func(t *testing.T) { testDeleteRestore(t, newRig(t, Options{})) })
	t.Run("trash on another file system", func(t *testing.T) {
		r := newRig(t, Options{})
		elsewhere := testkit.OtherFS(t, r.d.AgentDir)
		if err := os.Symlink(elsewhere, filepath.Join(r.d.AgentDir, "trash")); err != nil {
			t.Fatal(err)
		}
		testDeleteRestore(t, r)
	})
}

func testDeleteRestore(t *testing.T, r *rig) {
	ctx, api := t.Context(), r.api()
	flaky := r.item("Fix the flaky")
	id, path := flaky.ID, flaky.Path
	before, _ := os.ReadFile(path)
	d := r.detail(id)
	child := d.Lineage.Children[0]
	out, err := api.Delete(ctx, id) // as the web app sends it: {}
	if err != nil || out.TrashID == "" || out.Session.ID != id {
		t.Fatalf("delete answered %+v, %v, want trashId and the session", out, err)
	}
	trashID := out.TrashID
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file still there: %v", err)
	}
	_, err = api.Session(ctx, id)
	wantErr(t, "deleted session", err, 404, "")
	// The fork now points at the deleted session's parent (none).
	if c, err := api.Session(ctx, child.ID); err != nil || c.Session.ParentSessionPath != nil {
		t.Errorf("child still points at %v (%v)", c.Session.ParentSessionPath, err)
	}
	trash, err := api.Trash(ctx)
	if err != nil || len(trash.Items) != 1 || trash.Items[0].TrashID != trashID {
		t.Fatalf("trash %v, %v", trash.Items, err)
	}
	restored, err := api.Restore(ctx, trashID)
	if err != nil || restored.Session == nil || restored.Session.ID != id {
		t.Errorf("restore answered %+v, %v", restored, err)
	}
	if after, err := os.ReadFile(path); err != nil || string(after) != string(before) {
		t.Fatalf("not restored as it was (%v): %d bytes, had %d", err, len(after), len(before))
	}
	c, err := api.Session(ctx, child.ID)
	if err != nil || c.Session.ParentSessionID == nil || *c.Session.ParentSessionID != id {
		t.Errorf("child not re-pointed back: %v (%v)", c.Session.ParentSessionPath, err)
	}
	_, err = api.Restore(ctx, trashID)
	wantErr(t, "restore twice", err, 404, "")
	_, err = api.Restore(ctx, "../../x")
	wantErr(t, "restore of a path", err, 404, "")
}

func TestForkClone(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	id := r.item("Dark theme").ID
	out, err := api.Fork(ctx, id, userIDs(r.detail(id))[1])
	if err != nil || out.Text == nil || *out.Text != "A toggle, please." {
		t.Fatalf("fork text %v, %v", out.Text, err)
	}
	f, err := api.Session(ctx, out.ID)
	if err != nil || f.Session.ParentSessionID == nil || *f.Session.ParentSessionID != id {
		t.Errorf("fork parent %v, %v", f.Session, err)
	}
	if n := len(f.Tree); n != 4 { // model, thinking, user, assistant
		t.Errorf("fork has %d entries", n)
	}
	cl, err := api.Clone(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.Context(ctx, cl.ID, client.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := api.Context(ctx, id, client.PageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normal(t, orig.Messages), normal(t, c.Messages)); diff != "" {
		t.Errorf("clone context differs:\n%s", diff)
	}
	_, err = api.Fork(ctx, id, "nope")
	wantErr(t, "fork of no entry", err, 404, "")
}

// TestForkCloneInto: a session goes on in another folder (its own is gone,
// as every imported session's is) as pi's fork into a folder does: a new
// file in that folder's sessions, the header's cwd that folder, every
// branch kept with All; the original unchanged (issue 25 item 6).
func TestForkCloneInto(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	id := r.item("Dark theme").ID
	orig := r.detail(id)
	before, _ := os.ReadFile(orig.Session.Path)
	dir := t.TempDir()
	all, err := api.CloneAs(ctx, id, apitype.CloneRequest{Cwd: dir, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(r.d.AgentDir, "sessions", pisession.EncodeCwd(dir)); filepath.Dir(all.Path) != want {
		t.Errorf("new file %s, want it in %s", all.Path, want)
	}
	got, err := api.Session(ctx, all.ID)
	if err != nil || got.Session.Cwd != dir || len(got.Tree) != len(orig.Tree) {
		t.Errorf("clone into: cwd %q, %d entries (want %q, %d): %v", got.Session.Cwd, len(got.Tree), dir, len(orig.Tree), err)
	}
	users := userIDs(orig)
	fk, err := api.ForkAs(ctx, id, apitype.ForkRequest{EntryID: users[len(users)-1], Cwd: dir})
	if f, _ := api.Session(ctx, fk.ID); err != nil || f.Session.Cwd != dir {
		t.Errorf("fork into: %+v, %v", f.Session, err)
	}
	_, err = api.CloneAs(ctx, id, apitype.CloneRequest{Cwd: filepath.Join(dir, "missing")})
	wantErr(t, "clone into a missing folder", err, 400, "")
	if after, _ := os.ReadFile(orig.Session.Path); string(after) != string(before) {
		t.Error("the original changed")
	}
	// Projects say which folders are gone (the new one is not).
	ps, err := api.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, p := range ps.Projects {
		_, err := os.Stat(p.Cwd)
		if p.Missing != (err != nil) {
			t.Errorf("project %s missing %v, stat %v", p.Cwd, p.Missing, err)
		}
		seen = seen || p.Cwd == dir
	}
	if !seen {
		t.Errorf("the new folder is not among the projects")
	}
}

// TestDeleteRepointsEveryFolder: deleting a session in the middle of a fork
// chain re-points its children to its own parent, whichever project folder
// they are in, keeping a backup of each rewritten file; restoring points
// them back; a restore onto a path taken meanwhile is 409 busy.
func TestDeleteRepointsEveryFolder(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	flaky := r.item("Fix the flaky")
	d := r.detail(flaky.ID)
	mid := d.Lineage.Children[0]
	midPath := mid.Path
	notes := r.item("Read ideas.md")
	kids := map[string]string{ // id → folder
		"01a23b29-0000-7000-8000-000000000001": filepath.Dir(midPath),
		"01a23b29-0000-7000-8000-000000000002": filepath.Dir(notes.Path),
	}
	paths := map[string]string{}
	for id, dir := range kids {
		header := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-12-01T10:00:00.000Z","cwd":%q,"parentSession":%q}`,
			id, notes.Cwd, midPath)
		body := `{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"grandchild","timestamp":1}}`
		p, err := sessionstore.NewFile(dir, []byte(header+"\n"+body+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		paths[id] = p
	}
	r.sync()
	parentOf := func(id string) string {
		t.Helper()
		d, err := api.Session(ctx, id)
		if err != nil || d.Session.ParentSessionPath == nil {
			t.Fatalf("%s: parent %v, %v", id, d.Session.ParentSessionPath, err)
		}
		return *d.Session.ParentSessionPath
	}
	del, err := api.Delete(ctx, mid.ID)
	if err != nil {
		t.Fatal(err)
	}
	for id, p := range paths {
		if got := parentOf(id); got != flaky.Path {
			t.Errorf("%s: parent %v after delete, want %v", filepath.Base(filepath.Dir(p)), got, flaky.Path)
		}
		data, _ := os.ReadFile(p)
		if !strings.HasSuffix(string(data), `"content":"grandchild","timestamp":1}}`+"\n") {
			t.Errorf("rewrite changed the entries: %s", data)
		}
		if backups, _ := filepath.Glob(p + ".piweb-backup-*"); len(backups) != 1 {
			t.Errorf("%d backups of %s", len(backups), filepath.Base(p))
		}
	}
	if _, err := api.Restore(ctx, del.TrashID); err != nil {
		t.Fatal(err)
	}
	for id := range paths {
		if got := parentOf(id); got != midPath {
			t.Errorf("parent %v after restore, want %v", got, midPath)
		}
	}
	// Something new at the old path: the restore refuses to overwrite it.
	if del, err = api.Delete(ctx, mid.ID); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(midPath, []byte("someone else's\n"), 0o644)
	_, err = api.Restore(ctx, del.TrashID)
	wantErr(t, "restore over a file", err, 409, "busy")
	if b, _ := os.ReadFile(midPath); string(b) != "someone else's\n" {
		t.Errorf("the file at the old path was replaced: %s", b)
	}
	if trash, err := api.Trash(ctx); err != nil || len(trash.Items) != 1 {
		t.Errorf("trash after a refused restore: %v, %v", trash.Items, err)
	}
}

// TestDeleteFailureKeepsChildren: when the session cannot be moved into
// the trash, delete fails and its children point at it again, as before.
func TestDeleteFailureKeepsChildren(t *testing.T) {
	r := newRig(t, Options{})
	ctx, api := t.Context(), r.api()
	r.srv.store.Fault = func(step string) error {
		if step == sessionstore.StepDeleteMove {
			return errors.New("disk on fire")
		}
		return nil
	}
	flaky := r.item("Fix the flaky")
	d := r.detail(flaky.ID)
	child := d.Lineage.Children[0]
	childBefore, _ := os.ReadFile(child.Path)
	_, err := api.Delete(ctx, flaky.ID)
	wantErr(t, "delete", err, 500, "internal")
	if _, err := os.Stat(flaky.Path); err != nil {
		t.Errorf("the session is gone: %v", err)
	}
	c, err := api.Session(ctx, child.ID)
	if err != nil || c.Session.ParentSessionID == nil || *c.Session.ParentSessionID != flaky.ID {
		t.Errorf("child points at %v after the failed delete (%v)", c.Session.ParentSessionPath, err)
	}
	if after, _ := os.ReadFile(child.Path); string(after) != string(childBefore) {
		t.Errorf("child changed:\n%s\nwas\n%s", after, childBefore)
	}
	if trash, err := api.Trash(ctx); err != nil || len(trash.Items) != 0 {
		t.Errorf("trash %v, %v", trash.Items, err)
	}
}

// TestDeleteReadOnlyFolder: a delete the file system refuses (a folder the
// user may not write, a read-only mount) is a 403 that says so, not a 500;
// the session stays. (Root writes anywhere, so the refusal is injected as
// the error unlinking the file gives.)
func TestDeleteReadOnlyFolder(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EROFS} {
		r := newRig(t, Options{})
		r.srv.store.Fault = func(step string) error {
			if step == sessionstore.StepDeleteMove {
				return &fs.PathError{Op: "unlinkat", Path: "/x", Err: errno}
			}
			return nil
		}
		s := r.item("Fix the flaky")
		_, err := r.api().Delete(t.Context(), s.ID)
		wantErr(t, errno.Error(), err, 403, "forbidden")
		var e *client.Error
		if errors.As(err, &e) && (strings.Contains(e.Message, "/x") || !strings.Contains(e.Message, "nothing was changed")) {
			t.Errorf("%v: message %q", errno, e.Message)
		}
		if _, err := os.Stat(s.Path); err != nil {
			t.Errorf("%v: the session is gone: %v", errno, err)
		}
	}
}
