package server

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"time"

	"piweb/internal/access"
	"piweb/internal/errs"
)

// The owning machine's side of a forwarded request (docs/decisions/0018):
// the fleet key is its credential, in place of the user's sign-in and of
// the local-user rule, which the forwarding piweb applied to its user;
// Host and fetch metadata are checked as for anyone, Origin is not (the
// forwarding piweb checked it and sends none).

// checkFleet admits a request carrying the fleet key header: meant for
// this machine, with the key's proof for it made within
// access.ProofWindow (checkProof), on a forwarded route. Each one admitted is logged.
func (s *Server) checkFleet(w http.ResponseWriter, r *http.Request) error {
	key := s.opts.FleetKey
	if !key.Set() || s.opts.Fleet == nil {
		return errs.Errorf(errs.Forbidden, "this piweb takes no requests from other machines (it runs without --fleet and --fleet-key-file)")
	}
	client := s.clientKey(r)
	if s.auth.throttle.Blocked(client) {
		return errs.Errorf(errs.Throttled, "too many wrong fleet keys; try again later")
	}
	self := s.opts.Fleet.Machine()
	if want := r.Header.Get(fleetMachineHeader); want != self {
		return errs.Errorf(errs.Invalid, "this piweb is machine %q, not %q: that machine's --fleet-advertise address is out of date", self, want)
	}
	if err := s.checkProof(w, r, self); err != nil {
		return err
	}
	if !fleetRoute(r) {
		return errs.Errorf(errs.Forbidden, "%s %s is not open to other machines of the fleet", r.Method, r.URL.Path)
	}
	s.log.Info("fleet request", "from", r.Header.Get(fleetFromHeader), "method", r.Method,
		"path", r.URL.Path, "remote", r.RemoteAddr)
	return checkBody(r)
}

// checkProof checks the request's proof of the fleet key: a wrong one
// counts towards the client's throttle; a right one out of its time
// window (a replay, or a clock off by minutes) is refused with this
// machine's time, so that the forwarding piweb says which.
func (s *Server) checkProof(w http.ResponseWriter, r *http.Request, self string) error {
	now := time.Now()
	skew, err := s.opts.FleetKey.CheckProof(self, r.Header.Get(fleetKeyHeader), now)
	switch {
	case errors.Is(err, access.ErrStaleProof):
		s.log.Warn("fleet request refused: proof out of its time window", "from", r.Header.Get(fleetFromHeader),
			"skew", skew.Round(time.Second), "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
		w.Header().Set(fleetClockHeader, now.UTC().Format(time.RFC3339))
		return errs.Errorf(errs.Unauthorized, "fleet request out of date by %v: the machines' clocks must agree within %v",
			skew.Round(time.Second), access.ProofWindow)
	case err != nil:
		s.auth.throttle.Fail(s.clientKey(r))
		s.log.Warn("fleet request refused: wrong key", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
		return errs.Errorf(errs.Unauthorized, "wrong fleet key")
	}
	return nil
}

// knownFolder says whether cwd is the folder of one of this machine's
// sessions: another machine starts new sessions only there.
func (s *Server) knownFolder(ctx context.Context, cwd string) (bool, error) {
	metas, _, err := s.cat.List(ctx, ListQuery{Sort: "modified"})
	if err != nil {
		return false, err
	}
	cwd = filepath.Clean(cwd)
	for _, m := range metas {
		if m.Cwd != "" && filepath.Clean(m.Cwd) == cwd {
			return true, nil
		}
	}
	return false, nil
}

// checkFleetCreate refuses a new session another machine asks for
// outside this machine's known folders.
func (s *Server) checkFleetCreate(r *http.Request, cwd string) error {
	if !isFleet(r) {
		return nil
	}
	known, err := s.knownFolder(r.Context(), cwd)
	if err != nil {
		return err
	}
	if !known {
		return errs.Errorf(errs.Forbidden, "another machine may start a session here only in one of this machine's known folders")
	}
	return nil
}
