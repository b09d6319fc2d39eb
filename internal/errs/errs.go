// Package errs is piweb's one error type: an error says what kind of
// failure it is (Kind) where it happens, and what a client may read about
// it (Msg), beside the cause that only the log sees (Err). The server
// turns a kind into an HTTP status with one table and never translates a
// package's errors itself.
//
// The contract, for every package that returns errors to the API:
//
//   - An error the client caused or may act on carries a Kind other than
//     Internal, set by the package that knows (session knows a file
//     changed, gitx knows git is missing), with E or a typed error that
//     implements Classified.
//   - Msg is shown to the client as is: it never holds a path, a stack or
//     a cause's text; the cause goes in Err and is logged only.
//   - Wrapping keeps the kind: an outer E without a Kind (or with
//     Internal) lets the kind and message of the error it wraps through;
//     an outer E with a Kind decides both.
package errs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Kind classifies an error for the client: what went wrong, not where.
type Kind uint8

// The kinds. Other, the zero value, is no kind: an *Error of kind Other
// takes its cause's (KindOf never returns it). Internal is the server's
// own failure, said on purpose: it stops KindOf looking further.
const (
	Other            Kind = iota
	Internal              // piweb's own failure; the client learns nothing more
	Invalid               // the request is malformed or asks for the impossible
	Unauthorized          // no valid credential
	Forbidden             // a credential, but not allowed (or the file system refused)
	NotFound              // no such session, entry, file, item
	MethodNotAllowed      // the route exists, the method does not
	Busy                  // someone else is working on it: try again later
	Stale                 // the thing changed since the client read it: reload
	TooLarge              // over a limit of size or count
	Unsupported           // a media type or format piweb does not take
	Throttled             // too many of something at once
	PiMissing             // pi is not installed or cannot run
	Canceled              // the client went away
	Exists                // the name is taken
	NoSpace               // the disk is full
	Corrupt               // a file does not parse; replacing it is asked for explicitly
	Unavailable           // another machine of the fleet is offline or cannot be reached
)

var kindNames = [...]string{"other", "internal", "invalid", "unauthorized", "forbidden", "not_found",
	"method_not_allowed", "busy", "stale", "too_large", "unsupported", "throttled", "pi_missing",
	"canceled", "exists", "no_space", "corrupt", "unavailable"}

// String is the kind's code in the API's error answers ("not_found").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// ParseKind is the kind whose code is s ("not_found"), as String writes
// it; false for a code this build does not know (Other is never one).
func ParseKind(s string) (Kind, bool) {
	for k, name := range kindNames {
		if k != int(Other) && name == s {
			return Kind(k), true
		}
	}
	return Other, false
}

// Error is an error with a kind. Op names the operation that failed
// ("session.Append"), for the log; Msg is the client's; Err is the cause.
type Error struct {
	Op   string
	Kind Kind
	Msg  string
	Err  error
}

// Error is the log's text: the op, then the cause's text (the message
// when there is no cause).
func (e *Error) Error() string {
	s := e.Msg
	if e.Err != nil {
		s = e.Err.Error()
	}
	if e.Op != "" {
		return e.Op + ": " + s
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// E builds an *Error for op (which may be ""): each of args is its Kind,
// its client message (a string) or its cause (an error); E panics on
// anything else, a programming error. E with no Kind lets the cause's
// kind and message through, its own message serving only when the cause
// has no kind (see KindOf).
func E(op string, args ...any) error {
	e := &Error{Op: op}
	for _, a := range args {
		switch a := a.(type) {
		case Kind:
			e.Kind = a
		case string:
			e.Msg = a
		case error:
			e.Err = a
		default:
			panic(fmt.Sprintf("errs.E: argument of type %T", a))
		}
	}
	return e
}

// Errorf is an error of kind k whose message, formatted, is the client's
// and the log's: a refusal with no cause beyond the request.
func Errorf(k Kind, format string, args ...any) error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Classified is a typed error of another package that knows its kind and
// what the client may read (agent.CommandError: pi's reason, first line).
// KindOf and Message treat it as an *Error with that kind and message.
type Classified interface {
	error
	ErrorKind() Kind
	ClientMessage() string
}

// KindOf is err's kind: that of the outermost error in its chain (errors.Unwrap,
// both single and joined) that has one, an *Error with a Kind other than
// Other or a Classified; else that of the standard error it matches
// (context.Canceled, ENOSPC, EROFS, fs.ErrPermission, fs.ErrNotExist);
// else Internal. nil is Internal.
func KindOf(err error) Kind {
	k, _ := classify(err)
	return k
}

// Message is what the client reads about err: the message of the error
// that gave KindOf its kind, or else the outermost message of an *Error
// in the chain, or else a generic one for the kind. It is never a
// cause's text.
func Message(err error) string {
	_, m := classify(err)
	return m
}

// Is reports whether err is of kind k.
func Is(err error, k Kind) bool { return KindOf(err) == k }

// std are the standard library's errors that have a kind of their own,
// with the client's message when no error of piweb's words them.
var std = []struct {
	err  error
	kind Kind
	msg  string
}{
	{context.Canceled, Canceled, "request cancelled"},
	{syscall.ENOSPC, NoSpace, "the disk is full; nothing was changed"},
	{syscall.EROFS, Forbidden, "the file system is read-only; nothing was changed"},
	{fs.ErrPermission, Forbidden, "permission denied: piweb may not change this file or its folder; nothing was changed"},
	{fs.ErrNotExist, NotFound, "session file is gone"},
}

func classify(err error) (Kind, string) {
	if err == nil {
		return Internal, ""
	}
	outer := ""
	if k, msg, found := walk(err, &outer); found {
		if msg == "" {
			msg = outer
		}
		return k, msg
	}
	for _, s := range std {
		if errors.Is(err, s.err) {
			return s.kind, s.msg
		}
	}
	if outer == "" {
		outer = "internal error"
	}
	return Internal, outer
}

// walk looks for the outermost error with a kind in err's chain, noting
// in outer the first message of a kindless *Error on the way.
func walk(err error, outer *string) (Kind, string, bool) {
	for err != nil {
		switch e := err.(type) {
		case *Error:
			if e.Kind != Other {
				return e.Kind, e.Msg, true
			}
			if *outer == "" {
				*outer = e.Msg
			}
		case Classified:
			return e.ErrorKind(), e.ClientMessage(), true
		case interface{ Unwrap() []error }:
			for _, inner := range e.Unwrap() {
				if k, msg, found := walk(inner, outer); found {
					return k, msg, true
				}
			}
			return Other, "", false
		}
		err = errors.Unwrap(err)
	}
	return Other, "", false
}

// New is a package's sentinel error of kind k: text is its Error() (the
// log's), msg the client's. Callers match it with errors.Is.
func New(k Kind, msg, text string) *Error {
	return &Error{Kind: k, Msg: msg, Err: errors.New(text)}
}
