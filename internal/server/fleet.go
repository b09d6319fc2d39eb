package server

import (
	"context"
	"errors"
	"net/http"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/errs"
	"piweb/internal/fleet"
	"piweb/pisession"
)

// The fleet (issue 22, serve --fleet): answers for every machine from the
// fleet database, beside the local ones that stay the default.

// Fleet is the fleet database's reader (fleet.Reader): answers shaped as
// the local ones, each session with its machine.
type Fleet interface {
	Sessions(ctx context.Context, q catalog.ListQuery, machine string) (apitype.SessionList, error)
	Search(ctx context.Context, q catalog.SearchQuery) (apitype.Search, error)
	// Usage groups the fleet's usage by day (in tz), model, project or
	// machine, since a time (zero: all), days split by model, project or
	// machine.
	Usage(ctx context.Context, q fleet.UsageQuery) ([]catalog.UsageRow, error)
	// UsageSessions lists the sessions of every machine that cost the
	// most since a time, the most expensive first.
	UsageSessions(ctx context.Context, since time.Time, limit int) ([]apitype.UsageSession, error)
	// Session reads another machine's session (its listing and its file
	// as pushed) by its API id there; fleet.ErrNoSession when there is none.
	Session(ctx context.Context, machine, id string) (catalog.Meta, []byte, error)
	// Machines lists the fleet's machines, online as of now.
	Machines(ctx context.Context, now time.Time) ([]fleet.MachineInfo, error)
	// Machine is this machine's name in the fleet.
	Machine() string
	// Status is this machine's push, for GET /api/status.
	Status() apitype.FleetStatus
}

// machines answers GET /api/fleet/machines: every machine of the fleet,
// online or not, and which one this is.
func (s *Server) machines(w http.ResponseWriter, r *http.Request) error {
	return s.fleetAnswer(w, func(f Fleet) (any, error) {
		ms, err := f.Machines(r.Context(), time.Now())
		return apitype.FleetMachines{Self: f.Machine(), Drive: s.canDrive(), Machines: ms}, err
	})
}

// fleetAnswer answers from the fleet database (?fleet=1), or says that
// the fleet is off.
func (s *Server) fleetAnswer(w http.ResponseWriter, ask func(Fleet) (any, error)) error {
	if s.opts.Fleet == nil {
		return errs.Errorf(errs.Invalid, "the fleet is off (piweb serve --fleet URL)")
	}
	a, err := ask(s.opts.Fleet)
	if err != nil {
		return errs.E("fleet.Ask", errs.Internal, "the fleet database cannot answer: "+fleet.Explain(err), err)
	}
	return ok(w, a)
}

// remoteMachine is the machine ?machine= names when it is another one
// than this ("" for this machine's sessions); naming one while the fleet
// is off is invalid.
func (s *Server) remoteMachine(r *http.Request) (string, error) {
	machine := r.URL.Query().Get("machine")
	if machine == "" {
		return "", nil
	}
	if s.opts.Fleet == nil {
		return "", errs.Errorf(errs.Invalid, "the fleet is off (piweb serve --fleet URL)")
	}
	if machine == s.opts.Fleet.Machine() {
		return "", nil
	}
	return machine, nil
}

// openRemote reads another machine's session from the fleet database,
// read-only, parsed by piweb's own parser from its lines as pushed.
func (s *Server) openRemote(r *http.Request, machine string) (Meta, *pisession.Session, error) {
	m, data, err := s.remoteFile(r, machine)
	if err != nil {
		return m, nil, err
	}
	return m, pisession.Parse(data), nil
}

// remoteFile is another machine's session's listing and its file's
// complete lines as pushed to the fleet database.
func (s *Server) remoteFile(r *http.Request, machine string) (Meta, []byte, error) {
	return s.fleetFile(r.Context(), machine, r.PathValue("id"))
}

// fleetFile is machine's session key as remoteFile gives it.
func (s *Server) fleetFile(ctx context.Context, machine, key string) (Meta, []byte, error) {
	m, data, err := s.opts.Fleet.Session(ctx, machine, key)
	if errors.Is(err, fleet.ErrNoSession) {
		return m, nil, errs.Errorf(errs.NotFound, "session not found on machine %s", machine)
	}
	if err != nil {
		return m, nil, errs.E("fleet.Session", errs.Internal, "the fleet database cannot answer: "+fleet.Explain(err), err)
	}
	return m, data, nil
}
