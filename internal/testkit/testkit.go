// Package testkit holds the few helpers every piweb test package shares.
// It is imported by _test.go files only.
//
// Tests wait for something asynchronous with Eventually, which polls a
// condition until it holds or a timeout passes. Nothing else in the tests
// may sleep to synchronise: a sleep is either too short on a loaded machine
// (a flaky test) or too long everywhere (a slow suite). Timers a test
// controls belong in testing/synctest instead.
//
// A test writes the files of its setup with WriteFile, and checks output
// against a golden file with Golden (go test -update rewrites them).
package testkit

import (
	"errors"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Condition is what Eventually polls: a func() bool that reports whether
// the awaited state holds, or a func() error that returns nil when it holds
// and otherwise says what is still wrong (shown when the wait fails).
type Condition interface {
	func() bool | func() error
}

// Poll intervals: Eventually checks again after firstPoll, doubling up to
// maxPoll, so a condition that holds quickly costs little and a slow one
// does not spin.
const (
	firstPoll = time.Millisecond
	maxPoll   = 50 * time.Millisecond
)

// Eventually polls cond until it holds and fails the test (t.Fatalf, so
// only from the test's goroutine) when it still does not hold after
// timeout, naming what was awaited and, for a func() error, its last error.
// cond runs at least once, on the calling goroutine, never concurrently
// with itself.
func Eventually[C Condition](t testing.TB, cond C, timeout time.Duration, what string) {
	t.Helper()
	if err := poll(check(cond), timeout); err != nil {
		t.Fatalf("waited %v for %s: %v", timeout, what, err)
	}
}

// check turns either kind of Condition into a func() error.
func check[C Condition](cond C) func() error {
	if f, ok := any(cond).(func() error); ok {
		return f
	}
	f := any(cond).(func() bool)
	return func() error {
		if f() {
			return nil
		}
		return errNotYet
	}
}

var errNotYet = errors.New("condition still false")

// poll runs f until it returns nil or timeout has passed since the first
// call, returning f's last error in that case.
func poll(f func() error, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wait := firstPoll
	for {
		err := f()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, maxPoll)
	}
}

// Long marks a test as long (a browser, many pi runs, a big corpus): it is
// skipped under `go test -short`, the quick local loop; CI runs it.
func Long(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("long test: skipped under -short (CI runs it)")
	}
}

// AppendFile appends s to the file at path, as another process (a pi)
// writing the session would, in one write.
func AppendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// ReadFile returns the content of the file at path, failing the test
// when it cannot be read.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// WriteFile writes s to the file at path, making its folders first, for
// a test's setup.
func WriteFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// update has Golden rewrite the golden files instead of comparing
// (go test -update).
var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// Golden compares got with the golden file at path, or, run with
// -update, rewrites it.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		WriteFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// Log is a logger writing to tb's output, for the Log option every piweb
// package takes: a failing test shows what its parts logged.
func Log(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tb.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Drain is what ch holds now, without waiting for more: the events a
// subscriber has been sent so far.
func Drain[T any](ch <-chan T) []T {
	var out []T
	for {
		select {
		case v, open := <-ch:
			if !open {
				return out
			}
			out = append(out, v)
		default:
			return out
		}
	}
}

// Await reads ch until a value satisfies ok and returns it, failing the
// test (t.Fatalf) when ch closes or timeout passes first; what names the
// awaited value. The values before it are dropped.
func Await[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string, ok func(T) bool) T {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case v, open := <-ch:
			if !open {
				t.Fatalf("the stream ended before %s", what)
			}
			if ok(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("no %s within %v", what, timeout)
		}
	}
}

// Recv is the next value of ch, failing the test (t.Fatalf) when ch
// closes or timeout passes first; what names the awaited value.
func Recv[T any](t testing.TB, ch <-chan T, timeout time.Duration, what string) T {
	t.Helper()
	return Await(t, ch, timeout, what, func(T) bool { return true })
}

// CompareFloat orders a and b as cmp.Compare does, except that a NaN is
// equal to everything: a stable sort keeps the order of what has no
// value (a session without a valid time).
func CompareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
