package own

import (
	"maps"
	"slices"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/errs"
)

// MaxShares bounds the live share links kept.
const MaxShares = 1000

// ShareLink is one share link as kept: the API's Share and its token's
// hash (access.ShareHash), never the token.
type ShareLink struct {
	apitype.Share
	Hash string `json:"hash"`
}

// shareSet is shares.json: the links by their token's hash.
type shareSet struct {
	Links map[string]ShareLink `json:"links"`
}

// ShareStore holds the share links of one config dir (file shares.json).
// Its methods are safe for concurrent use; each change is on disk before
// it returns, so a revoked link is refused from the next request on.
type ShareStore struct {
	f   jsonFile[shareSet]
	max int // MaxShares (tests lower it)
}

// OpenShares loads the links kept in dir, or none; dir "" keeps them in
// memory only. A file that does not parse is an error (it is not
// overwritten).
func OpenShares(dir string) (*ShareStore, error) {
	s := &ShareStore{max: MaxShares, f: jsonFile[shareSet]{op: "own.Shares", what: "the share links", clone: cloneShares,
		v: shareSet{Links: map[string]ShareLink{}}}}
	if err := s.f.open(dir, "shares.json", fillShares); err != nil {
		return nil, err
	}
	return s, nil
}

func fillShares(v *shareSet) {
	if v.Links == nil {
		v.Links = map[string]ShareLink{}
	}
}

func cloneShares(v shareSet) shareSet { return shareSet{Links: maps.Clone(v.Links)} }

// Lookup is the link whose token has hash, if it has not expired at now.
func (s *ShareStore) Lookup(hash string, now time.Time) (sh apitype.Share, ok bool) {
	s.f.peek(func(v *shareSet) {
		l, found := v.Links[hash]
		ok = found && now.Before(l.Expires)
		sh = l.Share
	})
	if !ok {
		return apitype.Share{}, false
	}
	return sh, true
}

// List is the links not expired at now, newest first.
func (s *ShareStore) List(now time.Time) []apitype.Share {
	out := []apitype.Share{}
	s.f.peek(func(v *shareSet) {
		for _, l := range v.Links {
			if now.Before(l.Expires) {
				out = append(out, l.Share)
			}
		}
	})
	slices.SortFunc(out, func(a, b apitype.Share) int { return b.Created.Compare(a.Created) })
	return out
}

// Add keeps a new link (expired ones are dropped on the way); over
// MaxShares live links it is refused.
func (s *ShareStore) Add(l ShareLink, now time.Time) error {
	full := false
	_, err := s.f.change(func(v *shareSet) {
		dropExpired(v, now)
		if full = len(v.Links) >= s.max; !full {
			v.Links[l.Hash] = l
		}
	})
	if err == nil && full {
		err = errs.Errorf(errs.TooLarge, "%d share links are live: revoke some first", s.max)
	}
	return err
}

// Revoke drops the link of id; an unknown or expired id is NotFound.
func (s *ShareStore) Revoke(id string, now time.Time) error {
	found := false
	_, err := s.f.change(func(v *shareSet) {
		for h, l := range v.Links {
			if l.ID == id && now.Before(l.Expires) {
				delete(v.Links, h)
				found = true
			}
		}
		dropExpired(v, now)
	})
	if err == nil && !found {
		err = errs.Errorf(errs.NotFound, "no live share link %.40q", id)
	}
	return err
}

func dropExpired(v *shareSet, now time.Time) {
	maps.DeleteFunc(v.Links, func(_ string, l ShareLink) bool { return !now.Before(l.Expires) })
}
