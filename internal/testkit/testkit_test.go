package testkit

import (
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPollBoolAndError(t *testing.T) {
	var n atomic.Int32
	Eventually(t, func() bool { return n.Add(1) >= 3 }, 5*time.Second, "third call")
	n.Store(0)
	Eventually(t, func() error {
		if n.Add(1) < 3 {
			return errors.New("not yet")
		}
		return nil
	}, 5*time.Second, "third call")
}

func TestPollTimesOutWithLastError(t *testing.T) {
	calls := 0
	err := poll(func() error { calls++; return errors.New("still 7 left") }, 20*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "still 7 left") {
		t.Fatalf("poll = %v, want the condition's last error", err)
	}
	if calls < 2 {
		t.Errorf("cond ran %d times in 20ms, want it polled", calls)
	}
}

func TestPollRunsOnceWithZeroTimeout(t *testing.T) {
	calls := 0
	if err := poll(func() error { calls++; return nil }, 0); err != nil || calls != 1 {
		t.Fatalf("poll = %v after %d calls, want nil after 1", err, calls)
	}
}

func TestLongSkipsUnderShort(t *testing.T) {
	if !testing.Short() {
		t.Skip("only meaningful with -short")
	}
	ran := false
	t.Run("long", func(t *testing.T) {
		Long(t)
		ran = true
	})
	if ran {
		t.Error("Long did not skip under -short")
	}
}

// TestOutputHas: Has holds once the written text contains the string, and
// until then says what came so far.
func TestOutputHas(t *testing.T) {
	var o Output
	o.Write([]byte("hello, "))
	if err := o.Has("world")(); err == nil || err.Error() != "output so far: hello, " {
		t.Errorf("before: %v", err)
	}
	o.Write([]byte("world"))
	if err := o.Has("world")(); err != nil || o.String() != "hello, world" {
		t.Errorf("after: %v, %q", err, o.String())
	}
}

// TestDrainAndCompareFloat: Drain takes what is queued and stops at a
// closed channel; CompareFloat leaves a NaN where a stable sort put it.
func TestDrainAndCompareFloat(t *testing.T) {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	if got := Drain(ch); len(got) != 2 || got[1] != 2 {
		t.Errorf("Drain = %v", got)
	}
	close(ch)
	if got := Drain(ch); got != nil {
		t.Errorf("Drain of a closed channel = %v", got)
	}
	nan := math.NaN()
	if CompareFloat(1, 2) != -1 || CompareFloat(2, 1) != 1 || CompareFloat(nan, 1) != 0 || CompareFloat(1, nan) != 0 {
		t.Error("CompareFloat")
	}
}

// TestAwait: Await drops the values before the first that satisfies ok.
func TestAwait(t *testing.T) {
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	ch <- 3
	if got := Await(t, ch, time.Minute, "an even number", func(v int) bool { return v%2 == 0 }); got != 2 {
		t.Errorf("Await = %d, want 2", got)
	}
	if got := Recv(t, ch, time.Minute, "the next number"); got != 3 {
		t.Errorf("Recv = %d, want 3", got)
	}
	if left := Drain(ch); len(left) != 0 {
		t.Errorf("left %v, want none", left)
	}
}
