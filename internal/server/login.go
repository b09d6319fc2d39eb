package server

import (
	"cmp"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/piconfig"
)

// Account sign-in to a provider through pi's own `pi auth login` on a PTY
// (internal/pilogin does the work). Starting it runs pi: only a POST does,
// behind guard's Host, Origin and sign-in checks like every mutation.

// signInWait bounds one long-polling GET of a sign-in's state.
const signInWait = 20 * time.Second

// loginProvider is the request's provider when pi offers an account
// sign-in for it, and the runner.
func (s *Server) loginProvider(r *http.Request) (string, error) {
	id := r.PathValue("provider")
	for _, p := range piconfig.Providers {
		if p.ID == id && p.SignIn {
			return id, s.canSignIn()
		}
	}
	return "", errs.Errorf(errs.Invalid, "pi offers no account sign-in for %q", id)
}

// canSignIn says why pi cannot run a sign-in here, if it cannot: no pi,
// or one older than `pi auth login`.
func (s *Server) canSignIn() error {
	if s.logins == nil {
		return errs.Errorf(errs.PiMissing, "pi is not installed or cannot run; sign in in a terminal instead")
	}
	have := s.agent.Pi().Version
	if v, err := agent.ParseVersion(have); err == nil && v.Less(agent.VersionAuthLogin) {
		return errs.Errorf(errs.PiMissing, "pi %s has no `pi auth login` (pi %s added it); sign in in a terminal with a newer pi", have, agent.VersionAuthLogin)
	}
	return nil
}

func (s *Server) startSignIn(w http.ResponseWriter, r *http.Request) error {
	id, err := s.loginProvider(r)
	if err != nil {
		return err
	}
	st, err := s.logins.Start(r.Context(), id)
	if err != nil {
		return err
	}
	return ok(w, st)
}

func (s *Server) getSignIn(w http.ResponseWriter, r *http.Request) error {
	id, err := s.loginProvider(r)
	if err != nil {
		return err
	}
	after, err := strconv.ParseUint(cmp.Or(r.URL.Query().Get("after"), "0"), 10, 64)
	if err != nil {
		return errs.Errorf(errs.Invalid, "after must be a sequence number")
	}
	ctx, cancel := context.WithTimeout(r.Context(), signInWait)
	defer cancel()
	return ok(w, s.logins.Wait(ctx, id, after))
}

func (s *Server) answerSignIn(w http.ResponseWriter, r *http.Request) error {
	id, err := s.loginProvider(r)
	if err != nil {
		return err
	}
	var body apitype.SignInAnswer
	if err := decodeBody(w, r, &body, 16<<10); err != nil {
		return err
	}
	if strings.ContainsAny(body.Text, "\r\n\x03\x04\x1b") || len(body.Text) > 8<<10 {
		return errs.Errorf(errs.Invalid, "the answer must be one line of text")
	}
	if err := s.logins.Answer(id, body.Text); err != nil {
		return err
	}
	st, _ := s.logins.State(id)
	return ok(w, st)
}

func (s *Server) cancelSignIn(w http.ResponseWriter, r *http.Request) error {
	id, err := s.loginProvider(r)
	if err != nil {
		return err
	}
	if err := s.logins.Cancel(id); err != nil {
		return err
	}
	st, _ := s.logins.State(id)
	return ok(w, st)
}
