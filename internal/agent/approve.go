package agent

import (
	"context"
	"slices"

	"piweb/internal/errs"
)

// VersionTrust is the first pi with project trust (trust.json, --approve).
var VersionTrust = Version{0, 79, 0}

// ErrNoTrust is the answer to approving a session for a pi older than
// VersionTrust, which loads project resources without asking.
var ErrNoTrust = errs.New(errs.Invalid, "this pi has no project trust: it loads project resources without asking", "this pi has no project trust: it loads project resources without asking")

// Approve makes the workers of the session file at file start with pi's
// --approve ("trust project-local files for this run"): pi loads that
// session's project resources without a decision saved in trust.json, for
// as long as this supervisor runs. It is the user's "trust for this session
// only"; nothing else approves. The session's idle worker is stopped so
// that the next command starts one that loads them; a busy one is left
// alone (ErrBusy).
func (s *Supervisor) Approve(ctx context.Context, file string) error {
	if p := s.cfg.Base.Pi; p != nil && !p.Version.AtLeast(VersionTrust) {
		return ErrNoTrust
	}
	if w := s.Live(file); w != nil && w.Status().Busy() {
		return ErrBusy
	}
	s.mu.Lock()
	s.approved[Key(file)] = true
	s.mu.Unlock()
	s.Stop(ctx, file)
	return nil
}

// Approved reports whether the session file's workers start with --approve.
func (s *Supervisor) Approved(file string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.approved[Key(file)]
}

// approveArgs adds --approve to o's arguments when approve is set.
func approveArgs(o *Options, approve bool) {
	if approve {
		o.Args = append(slices.Clip(o.Args), "--approve")
	}
}
