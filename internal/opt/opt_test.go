package opt

import (
	"log/slog"
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

func TestClock(t *testing.T) {
	fixed := func() time.Time { return time.Unix(7, 0) }
	var unset func() time.Time
	Clock(&unset)
	set := fixed
	Clock(&set)
	if unset == nil || set().Unix() != 7 {
		t.Errorf("Clock: unset %v, set %v", unset == nil, set())
	}
	if Now(fixed).Unix() != 7 || Now(nil).Before(time.Unix(7, 0)) {
		t.Errorf("Now(fixed) = %v, Now(nil) = %v", Now(fixed), Now(nil))
	}
}

func TestLog(t *testing.T) {
	var unset *slog.Logger
	Log(&unset)
	set := slog.Default()
	Log(&set)
	if unset == nil || unset.Enabled(t.Context(), slog.LevelError) || set != slog.Default() || Logger(set) != set {
		t.Errorf("Log: unset %v, set %v", unset, set)
	}
}
