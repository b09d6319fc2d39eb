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
