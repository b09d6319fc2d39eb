package server

import (
	"net/http"
	"strconv"

	"piweb/internal/errs"
)

// findFiles answers the composer's "@" completion: the paths of the
// session's folder matching q, best first (internal/filefind lists and
// ranks them).
func (s *Server) findFiles(w http.ResponseWriter, r *http.Request, m Meta) error {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		var err error
		if limit, err = strconv.Atoi(v); err != nil || limit < 1 {
			return errs.Errorf(errs.Invalid, "limit must be a positive number")
		}
	}
	if len(q.Get("q")) > 4096 {
		return errs.Errorf(errs.TooLarge, "query over 4096 bytes")
	}
	a, err := s.find.Find(r.Context(), m.Cwd, q.Get("q"), limit)
	return answer(w, a, err)
}
