package server

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"piweb/internal/access"
	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/export"
	"piweb/internal/own"
)

// The user's read-only share links (docs/decisions/0042): made, listed
// and revoked here, behind guard's checks like every API route; what a
// link opens is sharepage.go's. piweb keeps each token's hash only
// (internal/own, shares.json), so the link is in POST's answer and
// nowhere else.

// Share link lifetimes, in hours.
const (
	shareDefaultHours = 7 * 24
	shareMaxHours     = 90 * 24
)

func (s *Server) listShares(w http.ResponseWriter, r *http.Request) error {
	return ok(w, apitype.Shares{Shares: s.shares.List(time.Now())})
}

// postShare makes a link to a session of this machine, or to the branch
// ending at one of its entries; asked by another machine of the fleet
// too (its user shares this machine's session there: decision 0046), as
// the link opens here, on this machine's address.
func (s *Server) postShare(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ShareRequest
	if err := decodeBody(w, r, &body, 16<<10); err != nil {
		return err
	}
	hours, err := shareHours(body.Hours)
	if err != nil {
		return err
	}
	m, err := s.shareTarget(r.Context(), body.Session)
	if err != nil {
		return err
	}
	leaf, err := s.shareLeafID(m, body)
	if err != nil {
		return err
	}
	token, hash := access.NewShareToken()
	now := time.Now().UTC().Truncate(time.Second)
	sh := apitype.Share{ID: base64.RawURLEncoding.EncodeToString(access.RandomBytes(9)), Session: body.Session,
		Leaf: leaf, Title: shareTitle(m), Created: now, Expires: now.Add(time.Duration(hours) * time.Hour)}
	if err := s.shares.Add(own.ShareLink{Share: sh, Hash: hash}, now); err != nil {
		return err
	}
	s.log.Info("share link made", "id", sh.ID, "session", sh.Session, "expires", sh.Expires, "from", r.Header.Get(fleetFromHeader))
	return ok(w, apitype.NewShare{Share: sh, Path: "/share/" + token, LoopbackOnly: IsLoopback(s.opts.Addr)})
}

// deleteShare revokes a link: its page is refused from the next request
// on, an open one's included (it asks every few seconds).
func (s *Server) deleteShare(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("shareId")
	if err := s.shares.Revoke(id, time.Now()); err != nil {
		return err
	}
	s.log.Info("share link revoked", "id", id)
	return ok(w, apitype.OK{OK: true})
}

func shareHours(h int) (int, error) {
	switch {
	case h == 0:
		return shareDefaultHours, nil
	case h < 0 || h > shareMaxHours:
		return 0, errs.Errorf(errs.Invalid, "hours must be 1 to %d (90 days)", shareMaxHours)
	}
	return h, nil
}

// shareTarget is the session a link is asked for: one of this machine's
// (another machine's is asked of that machine, through the fleet proxy).
func (s *Server) shareTarget(ctx context.Context, id string) (Meta, error) {
	if id == "" || len(id) > 512 {
		return Meta{}, errs.Errorf(errs.Invalid, "say which session to share")
	}
	if strings.Contains(id, "@") {
		return Meta{}, errs.Errorf(errs.Invalid, "name another machine's session by its id and ?machine=, which sends the request on to it")
	}
	m, err := s.lookupID(ctx, id)
	if err != nil {
		return Meta{}, errs.Errorf(errs.NotFound, "session %.80s not found", id)
	}
	return m, nil
}

// shareLeafID is the entry a branch link ends at: the one asked for, or
// the session's leaf now; "" for a link to the whole session.
func (s *Server) shareLeafID(m Meta, body apitype.ShareRequest) (string, error) {
	if !body.Branch {
		if body.Leaf != "" {
			return "", errs.Errorf(errs.Invalid, "leaf names a branch: set branch too")
		}
		return "", nil
	}
	sess, err := s.load(m.Path)
	if err != nil {
		return "", err
	}
	if body.Leaf == "" {
		if l := sess.Leaf(); l != nil && l.ID != "" {
			return l.ID, nil
		}
		return "", errs.Errorf(errs.Invalid, "the session has no entry yet to share a branch of")
	}
	if sess.ByID(body.Leaf) == nil {
		return "", errs.Errorf(errs.NotFound, "entry not found")
	}
	return body.Leaf, nil
}

func shareTitle(m Meta) string {
	name := ""
	if m.HasName {
		name = m.Name
	}
	return export.Title(name, m.FirstMessage, m.ID)
}
