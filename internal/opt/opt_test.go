package opt

import (
	"testing"
	"time"
)

func TestPositive(t *testing.T) {
	for _, c := range []struct{ in, want time.Duration }{{0, 5}, {-1, 5}, {3, 3}} {
		got := c.in
		Positive(&got, 5)
		if got != c.want {
			t.Errorf("Positive(%d, 5) = %d, want %d", c.in, got, c.want)
		}
	}
}
