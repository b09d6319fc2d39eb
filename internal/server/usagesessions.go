package server

import (
	"net/http"
	"strconv"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// usageSessionsLimit is how many sessions GET /api/usage/sessions lists
// unless asked for fewer.
const usageSessionsLimit = 50

// getUsageSessions answers GET /api/usage/sessions?tz=&days=N&limit=N:
// the listed sessions' usage over the period (as GET /api/usage counts
// it), the most expensive first; with fleet=1 every machine's sessions,
// each with its machine.
func (s *Server) getUsageSessions(w http.ResponseWriter, r *http.Request) error {
	q, err := usageQuery(r)
	if err != nil {
		return err
	}
	limit := usageSessionsLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 || limit > 1000 {
			return errs.Errorf(errs.Invalid, "limit must be between 1 and 1000")
		}
	}
	if r.URL.Query().Has("fleet") {
		return s.fleetAnswer(w, func(f Fleet) (any, error) {
			list, err := f.UsageSessions(r.Context(), q.Since, limit)
			return apitype.UsageSessions{Sessions: list, TZ: q.Loc.String()}, err
		})
	}
	list, err := s.cat.UsageBySession(r.Context(), q, limit)
	if err != nil {
		return err
	}
	out := apitype.UsageSessions{Sessions: make([]apitype.UsageSession, len(list)), TZ: q.Loc.String()}
	for i, x := range list {
		out.Sessions[i] = apitype.UsageSession{Session: s.item(x.Meta), Usage: x.Usage}
	}
	return ok(w, out)
}
