package errs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

type typed struct{}

func (typed) Error() string         { return "typed: /secret/path" }
func (typed) ErrorKind() Kind       { return Busy }
func (typed) ClientMessage() string { return "busy, try again" }

// TestKindAndMessage: the outermost error with a kind decides kind and
// message; a kindless wrapper lends its message only to a cause without
// a kind; the standard errors have kinds of their own; a cause's text
// never becomes the client's message.
func TestKindAndMessage(t *testing.T) {
	sentinel := &Error{Kind: Stale, Msg: "reload", Err: errors.New("file changed")}
	for _, c := range []struct {
		name string
		err  error
		kind Kind
		msg  string
	}{
		{"nil", nil, Internal, ""},
		{"plain", errors.New("disk on fire at /x"), Internal, "internal error"},
		{"kindless wrapper", E("op", "cannot write session", errors.New("/x")), Internal, "cannot write session"},
		{"explicit internal stops", E("op", Internal, "cannot read trash", fs.ErrNotExist), Internal, "cannot read trash"},
		{"inner kind wins over kindless", E("op", "cannot write session", fmt.Errorf("w: %w", sentinel)), Stale, "reload"},
		{"outer kind wins", E("op", Busy, "try again", sentinel), Busy, "try again"},
		{"kind without message takes outer", E("a", "outer words", E("b", NotFound)), NotFound, "outer words"},
		{"classified", fmt.Errorf("x: %w", typed{}), Busy, "busy, try again"},
		{"joined", errors.Join(errors.New("a"), sentinel), Stale, "reload"},
		{"canceled", fmt.Errorf("search: %w", context.Canceled), Canceled, "request cancelled"},
		{"no space", &fs.PathError{Op: "write", Path: "/x", Err: syscall.ENOSPC}, NoSpace, "the disk is full; nothing was changed"},
		{"read-only", &fs.PathError{Op: "unlinkat", Path: "/x", Err: syscall.EROFS}, Forbidden, "the file system is read-only; nothing was changed"},
		{"not exist", E("load", "cannot read session", fs.ErrNotExist), NotFound, "session file is gone"},
		{"errorf", Errorf(Invalid, "limit %d", 3), Invalid, "limit 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if k, m := KindOf(c.err), Message(c.err); k != c.kind || m != c.msg {
				t.Errorf("kind %v message %q, want %v %q", k, m, c.kind, c.msg)
			}
		})
	}
}

// TestErrorText: the log's text is op and cause; errors.Is sees through.
func TestErrorText(t *testing.T) {
	cause := errors.New("disk on fire")
	err := E("session.Append", Internal, "cannot write session", cause)
	if err.Error() != "session.Append: disk on fire" || !errors.Is(err, cause) {
		t.Errorf("%q", err.Error())
	}
	if got := Errorf(Invalid, "bad").Error(); got != "bad" {
		t.Errorf("%q", got)
	}
	if NoSpace.String() != "no_space" || Kind(200).String() != "kind(200)" {
		t.Error(NoSpace.String())
	}
}

// TestParseKind: every kind's code reads back as the kind (a client of
// the API learns the server's kind from it); "other" and unknown codes
// are no kind.
func TestParseKind(t *testing.T) {
	for k := Internal; int(k) < len(kindNames); k++ {
		if got, found := ParseKind(k.String()); !found || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, found)
		}
	}
	for _, s := range []string{"other", "", "kind(99)", "NOT_FOUND"} {
		if k, found := ParseKind(s); found {
			t.Errorf("ParseKind(%q) = %v, want no kind", s, k)
		}
	}
}
