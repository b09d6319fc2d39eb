package agent

import (
	"context"
	"errors"
	"time"
)

// ExitNotice is the body of a piweb_exit event.
type ExitNotice struct {
	Reason  string `json:"reason"` // crashed, idle, evicted, shutdown, stopped, start failed
	Status  int    `json:"status"`
	Signal  string `json:"signal,omitempty"`
	Stderr  string `json:"stderr,omitempty"`
	Error   string `json:"error,omitempty"`
	CwdGone string `json:"cwdGone,omitempty"` // the missing directory
}

func exitNotice(err error, reason string) ExitNotice {
	n := ExitNotice{Reason: reason, Status: -1}
	if err == nil {
		return n
	}
	n.Error = err.Error()
	var cg *CwdGoneError
	if errors.As(err, &cg) {
		n.CwdGone = cg.Dir
	}
	var x *ExitError
	if errors.As(err, &x) {
		n.Status, n.Signal, n.Stderr = x.Status, x.Signal, x.Stderr
	}
	return n
}

// reaper stops workers idle for longer than IdleTimeout.
func (s *Supervisor) reaper() {
	defer s.wg.Done()
	period := s.cfg.IdleTimeout / 4
	if period > 30*time.Second {
		period = 30 * time.Second
	}
	t := time.NewTicker(period)
	defer t.Stop()
	var polls <-chan time.Time // nil: no poll
	if s.cfg.OutsidePoll > 0 {
		poll := time.NewTicker(s.cfg.OutsidePoll)
		defer poll.Stop()
		polls = poll.C
	}
	for {
		select {
		case <-s.quit:
			return
		case now := <-t.C:
			s.reap(now)
			s.events.Collect()
		case <-polls:
			s.pollOutside()
		}
	}
}

// pollOutside checks every live worker's file for foreign appends, so
// subscribers hear about a terminal pi's writes without sending anything.
func (s *Supervisor) pollOutside() {
	s.mu.Lock()
	var ws []*Worker
	for _, e := range s.entries {
		if e.w != nil {
			ws = append(ws, e.w)
		}
	}
	s.mu.Unlock()
	for _, w := range ws {
		_ = w.CheckOutside()
	}
}

func (s *Supervisor) reap(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, e := range s.entries {
		w := e.w
		if w == nil {
			// Forget sessions nobody runs or listens to; the broker drops
			// their topic once idle, and a later reconnect with an old Seq
			// is then told to resync.
			if e.starting == nil && e.hub.Subscribers() == 0 {
				delete(s.entries, key)
			}
			continue
		}
		if w.busy(now) || now.Sub(w.idleSince()) < s.cfg.IdleTimeout {
			continue
		}
		e.w = nil
		go w.stop(context.Background(), "idle", s.cfg.KillGrace)
	}
}
