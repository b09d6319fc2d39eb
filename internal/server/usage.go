package server

import (
	"cmp"
	"net/http"
	"strconv"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/fleet"
)

// getUsage answers GET /api/usage?by=day|model|project&tz=Area/City&days=N.
// Days are counted in tz (the browser's zone) when the server knows it,
// else in UTC; the answer says which. days keeps the last N calendar days,
// today included. by=day&split=model|project splits each day by model or
// project (a row per day and group), or under fleet=1 by machine too.
func (s *Server) getUsage(w http.ResponseWriter, r *http.Request) error {
	q, err := usageQuery(r)
	if err != nil {
		return err
	}
	if r.URL.Query().Has("fleet") {
		return s.fleetAnswer(w, func(f Fleet) (any, error) {
			rows, err := f.Usage(r.Context(), fleet.UsageQuery{By: q.By, Split: q.Split, TZ: q.Loc.String(), Since: q.Since})
			return apitype.Usage{Rows: rows, TZ: q.Loc.String()}, err
		})
	}
	if q.By == "machine" {
		return errs.Errorf(errs.Invalid, "by=machine needs fleet=1")
	}
	rows, err := s.cat.Usage(r.Context(), q)
	if err != nil {
		return err
	}
	if rows == nil {
		rows = []UsageRow{}
	}
	return ok(w, apitype.Usage{Rows: rows, TZ: q.Loc.String()})
}

func usageQuery(r *http.Request) (UsageQuery, error) {
	v := r.URL.Query()
	q := UsageQuery{By: cmp.Or(v.Get("by"), "day"), Loc: time.UTC}
	if q.By != "day" && q.By != "model" && q.By != "project" && q.By != "machine" {
		return q, errs.Errorf(errs.Invalid, "by must be day, model, project or machine (with fleet=1)")
	}
	if tz := v.Get("tz"); tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			q.Loc = l
		}
	}
	if q.Split = v.Get("split"); q.Split != "" && (q.By != "day" || q.Split != "model" && q.Split != "project" &&
		(q.Split != "machine" || !v.Has("fleet"))) {
		return q, errs.Errorf(errs.Invalid, "split must be model or project (or machine with fleet=1), with by=day")
	}
	if d := v.Get("days"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 1 || n > 100000 {
			return q, errs.Errorf(errs.Invalid, "days must be a positive number")
		}
		y, m, day := time.Now().In(q.Loc).Date()
		q.Since = time.Date(y, m, day-(n-1), 0, 0, 0, 0, q.Loc)
	}
	return q, nil
}
