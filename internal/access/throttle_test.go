package access

import (
	"strconv"
	"testing"
	"time"
)

// TestThrottleBounded: the throttle remembers a fixed number of clients
// and a flood from many addresses never reopens a locked-out client's
// budget early; the window's end does.
func TestThrottleBounded(t *testing.T) {
	now := time.Unix(1e9, 0)
	th := NewThrottle(10, time.Minute)
	th.now = func() time.Time { return now }
	for range 10 {
		th.Fail("victim")
	}
	for i := range 3 * throttleSize {
		th.Fail("10.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256))
		if i%500 == 0 && !th.Blocked("victim") {
			t.Fatalf("after %d other addresses the locked-out client may guess again", i)
		}
	}
	if n := th.lru.Len(); n > throttleSize {
		t.Errorf("%d clients remembered, bound %d", n, throttleSize)
	}
	now = now.Add(2 * time.Minute)
	if th.Blocked("victim") || th.Blocked("someone") {
		t.Error("still blocked after the window")
	}
}
