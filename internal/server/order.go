package server

import (
	"context"
	"net/http"
	"strings"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/live"
)

// The user's pins and archive (internal/own, order.json), kept on the
// server so they follow the user across browsers, devices and restarts;
// every change goes to the index topic as "order_state" for the other
// tabs. Sessions are named as the page names them: a local session by its
// API id, another machine's under serve --fleet by its ref ID@MACHINE.

// maxOrderIDs bounds the sessions one change names.
const maxOrderIDs = 10000

func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) error {
	return ok(w, s.order.State())
}

// postOrder pins, unpins, archives or restores many sessions at once.
// Pinning or archiving needs each session to exist (nothing changes
// otherwise); unpinning and restoring take any key, so that what was
// kept of a session gone since can be dropped.
func (s *Server) postOrder(w http.ResponseWriter, r *http.Request) error {
	var body apitype.OrderChange
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := s.checkOrder(r.Context(), body); err != nil {
		return err
	}
	st, err := s.order.Set(body.IDs, body.Pinned, body.Archived, time.Now())
	if err != nil {
		return err
	}
	s.live.PublishJSON(live.IndexTopic, apitype.OrderState{Type: "order_state", Order: st})
	return ok(w, st)
}

func (s *Server) checkOrder(ctx context.Context, c apitype.OrderChange) error {
	switch {
	case c.Pinned == nil && c.Archived == nil:
		return errs.Errorf(errs.Invalid, "say pinned or archived")
	case len(c.IDs) == 0:
		return errs.Errorf(errs.Invalid, "ids is empty")
	case len(c.IDs) > maxOrderIDs:
		return errs.Errorf(errs.TooLarge, "more than %d ids", maxOrderIDs)
	}
	adds := c.Pinned != nil && *c.Pinned || c.Archived != nil && *c.Archived
	for _, id := range c.IDs {
		if err := s.checkOrderID(ctx, id, adds); err != nil {
			return err
		}
	}
	return nil
}

// checkOrderID refuses a key that is empty or long, and, when it is to be
// pinned or archived, a local session not listed or a remote ref without
// the fleet (refs are checked for shape, not against the fleet database).
func (s *Server) checkOrderID(ctx context.Context, id string, adds bool) error {
	if id == "" || len(id) > 512 {
		return errs.Errorf(errs.Invalid, "bad session id %.40q", id)
	}
	if !adds {
		return nil
	}
	if i := strings.IndexByte(id, '@'); i >= 0 {
		return s.checkRef(id[:i], id[i+1:])
	}
	if _, err := s.lookupID(ctx, id); err != nil {
		return errs.Errorf(errs.NotFound, "session %.80s not found", id)
	}
	return nil
}

// checkRef refuses another machine's ref ID@MACHINE without the fleet,
// malformed, or naming this machine (whose sessions go by their id).
func (s *Server) checkRef(id, machine string) error {
	switch {
	case s.opts.Fleet == nil:
		return errs.Errorf(errs.NotFound, "session %.80s@%.40s not found: another machine's needs serve --fleet", id, machine)
	case id == "" || machine == "":
		return errs.Errorf(errs.Invalid, "bad session ref %.80q", id+"@"+machine)
	case machine == s.opts.Fleet.Machine():
		return errs.Errorf(errs.Invalid, "name this machine's session %.80s by its id", id)
	}
	return nil
}
