package agent

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// spare is a pi started in advance with --no-session. Taking it for a
// session costs one switch_session (pi rebuilds its runtime for the
// session's cwd) instead of the ~1.5 s of Node start-up.
type spare struct {
	c      *Client
	target atomic.Pointer[Worker]
	ready  chan struct{}
	err    error
}

func (sp *spare) onEvent(e Event) {
	if w := sp.target.Load(); w != nil {
		w.onEvent(e)
	}
}

func (sp *spare) discard(ctx context.Context, grace time.Duration) {
	<-sp.ready
	if sp.c != nil {
		sp.c.Close(ctx, grace)
	}
}

// refillSpare starts a new spare when configured and none is there.
func (s *Supervisor) refillSpare() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cfg.Spare || s.closed || s.spare != nil {
		return
	}
	sp := &spare{ready: make(chan struct{})}
	s.spare = sp
	o := s.cfg.resumeOptions()
	o.SessionFile, o.NoSession, o.OnEvent = "", true, sp.onEvent
	go func() {
		defer close(sp.ready)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		sp.c, _, sp.err = Start(ctx, o)
	}()
}

func (s *Supervisor) takeSpare() *spare {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.spare
	s.spare = nil
	return sp
}

// adoptSpare points the spare at w's session file.
func (s *Supervisor) adoptSpare(ctx context.Context, sp *spare, w *Worker) error {
	select {
	case <-sp.ready:
	case <-ctx.Done():
		go sp.discard(context.Background(), s.cfg.KillGrace)
		return ctx.Err()
	}
	if sp.err != nil {
		return fmt.Errorf("spare pi: %w", sp.err)
	}
	sp.target.Store(w)
	_, err := sp.c.SwitchSession(ctx, w.key)
	if err == nil {
		var st State
		if st, err = sp.c.GetState(ctx); err == nil {
			w.attach(sp.c, st)
			return nil
		}
	}
	go sp.c.Close(context.Background(), s.cfg.KillGrace)
	var ce *CommandError
	if errors.As(err, &ce) {
		if x := classifyExit(&ExitError{Status: -1, Stderr: ce.Message}, w.key); x != nil {
			if _, ok := x.(*CwdGoneError); ok {
				return x
			}
		}
	}
	return fmt.Errorf("switch spare pi to %s: %w", w.key, err)
}
