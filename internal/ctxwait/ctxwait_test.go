package ctxwait

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		if err := Sleep(ctx, time.Minute); err != nil || time.Since(start) != time.Minute {
			t.Errorf("Sleep(1m) = %v after %v, want nil after 1m", err, time.Since(start))
		}
		time.AfterFunc(time.Second, cancel)
		start = time.Now()
		if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Errorf("Sleep cancelled after 1s = %v after %v, want Canceled after 1s", err, time.Since(start))
		}
		if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(0) on a done context = %v, want Canceled", err)
		}
	})
}
