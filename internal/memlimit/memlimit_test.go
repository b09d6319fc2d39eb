package memlimit

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestSet: a piweb process sets a soft memory limit unless
// GOMEMLIMIT sets one (decision 0036).
func TestSet(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, tc := range []struct {
		env        string
		set, limit int64
	}{
		{"", Soft, Soft},
		{"1GiB", -1, math.MaxInt64},
	} {
		debug.SetMemoryLimit(math.MaxInt64)
		set := Set(func(k string) string {
			if k == "GOMEMLIMIT" {
				return tc.env
			}
			return ""
		})
		if got := debug.SetMemoryLimit(-1); set != tc.set || got != tc.limit {
			t.Errorf("GOMEMLIMIT=%q: set %d, limit %d; want %d, %d", tc.env, set, got, tc.set, tc.limit)
		}
	}
}

// TestHold: the limit rises by what the session cache holds, and falls
// back when it holds less; under GOMEMLIMIT it is left alone.
func TestHold(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	defer func() { mu.Lock(); ours, held = false, 0; mu.Unlock() }()
	Set(func(string) string { return "" })
	for _, n := range []int64{1 << 30, 0, -5} {
		Hold(n)
		if got, want := debug.SetMemoryLimit(-1), Soft+max(n, 0); got != want {
			t.Errorf("Hold(%d): limit %d, want %d", n, got, want)
		}
	}
	mu.Lock()
	ours = false // as under GOMEMLIMIT
	mu.Unlock()
	debug.SetMemoryLimit(math.MaxInt64)
	Hold(1 << 30)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("under GOMEMLIMIT the limit became %d", got)
	}
}
