package server

import (
	"context"
	"net/http"
	"path/filepath"

	"piweb/internal/errs"
)

// The owning machine's side of a forwarded request (docs/decisions/0018):
// the fleet key is its credential, in place of the user's sign-in and of
// the local-user rule, which the forwarding piweb applied to its user;
// Host and fetch metadata are checked as for anyone, Origin is not (the
// forwarding piweb checked it and sends none).

// checkFleet admits a request carrying the fleet key header: meant for
// this machine, with the key's proof for it (access.FleetKey.Proof,
// compared in constant time, wrong ones throttled per client), on a
// forwarded route. Each one admitted is logged.
func (s *Server) checkFleet(r *http.Request) error {
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
	if !key.ProofOK(self, r.Header.Get(fleetKeyHeader)) {
		s.auth.throttle.Fail(client)
		s.log.Warn("fleet request refused: wrong key", "method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
		return errs.Errorf(errs.Unauthorized, "wrong fleet key")
	}
	if !fleetRoute(r) {
		return errs.Errorf(errs.Forbidden, "%s %s is not open to other machines of the fleet", r.Method, r.URL.Path)
	}
	s.log.Info("fleet request", "from", r.Header.Get(fleetFromHeader), "method", r.Method,
		"path", r.URL.Path, "remote", r.RemoteAddr)
	return checkBody(r)
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
