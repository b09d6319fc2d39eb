package server

import (
	"net/http"
)

// repair rewrites a damaged session file as `piweb check --repair` does
// (ops.Repair).
func (s *Server) repair(w http.ResponseWriter, r *http.Request) error {
	_, m, err := sessionRequest[struct{}](s, w, r, nil)
	if err != nil {
		return err
	}
	a, err := s.ops.Repair(r.Context(), m)
	return answer(w, a, err)
}
