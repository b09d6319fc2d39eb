// Package opt defaults the zero values of options: every Options type's
// constructor fills what its caller left out the same way, a value not
// above zero taking the package's default.
package opt

import (
	"log/slog"
	"time"
)

// Positive sets *p to d when *p is not above zero (a count, a size or a
// duration the caller left unset).
func Positive[T ~int | ~int64](p *T, d T) {
	if *p <= 0 {
		*p = d
	}
}

// Clock sets *now to time.Now when the caller left the clock nil.
func Clock(now *func() time.Time) {
	if *now == nil {
		*now = time.Now
	}
}

// Now is the time by clock, or by time.Now when clock is nil: for a type
// whose exported clock field may be left nil.
func Now(clock func() time.Time) time.Time {
	if clock != nil {
		return clock()
	}
	return time.Now()
}

// Log sets *log to a logger that discards everything when the caller left
// it nil.
func Log(log **slog.Logger) {
	*log = Logger(*log)
}

// Logger is log, or a logger that discards everything when log is nil.
func Logger(log *slog.Logger) *slog.Logger {
	if log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return log
}
