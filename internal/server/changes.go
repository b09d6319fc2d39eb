package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"piweb/internal/gitx"
	"piweb/internal/session"
)

// The Changes panel: the git working tree of a session's cwd (internal/gitx
// runs git) and the files the session's own tool calls wrote or edited
// (session.FileChanges). Topic "g/<id>" tells followers when git's view
// changed (one poller per followed session, like the files panel's; the
// topic's name is parsed in stream.go's topic switch).

// gitChanged is the git topic's event.
var gitChanged = struct {
	Type string `json:"type"`
}{"git_changed"}

// gitAnswer is GET /git/status: Status when the cwd is in a repository,
// else why not (no_git, not_repo, no_dir, timeout) and a message.
type gitAnswer struct {
	Available bool         `json:"available"`
	Reason    string       `json:"reason,omitempty"`
	Message   string       `json:"message,omitempty"`
	Status    *gitx.Status `json:"status,omitempty"`
}

var gitReasons = []struct {
	err    error
	reason string
}{{gitx.ErrNoGit, "no_git"}, {gitx.ErrNotRepo, "not_repo"}, {gitx.ErrNoDir, "no_dir"}, {gitx.ErrTimeout, "timeout"}}

// gitState answers a session's git state; a state git reports (no git,
// no repository, no folder, too slow) is an answer, not an error.
func (s *Server) gitState(ctx context.Context, cwd string) (gitAnswer, error) {
	st, err := s.git.Status(ctx, cwd)
	if err == nil {
		return gitAnswer{Available: true, Status: st}, nil
	}
	for _, r := range gitReasons {
		if errors.Is(err, r.err) {
			return gitAnswer{Reason: r.reason, Message: r.err.Error()}, nil
		}
	}
	return gitAnswer{}, wrap(Internal, err, "git status failed")
}

func (s *Server) gitStatus(w http.ResponseWriter, r *http.Request) error {
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	a, err := s.gitState(r.Context(), m.Cwd)
	if err != nil {
		return err
	}
	return ok(w, a)
}

func (s *Server) gitDiff(w http.ResponseWriter, r *http.Request) error {
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	root, err := s.git.Root(r.Context(), m.Cwd)
	if err != nil {
		return gitErr(err)
	}
	q := r.URL.Query()
	d, err := s.git.FileDiff(r.Context(), root, q.Get("path"), q.Get("which"))
	if errors.Is(err, gitx.ErrBadPath) {
		return errorf(Forbidden, "path must be relative to the repository and stay inside it")
	} else if err != nil {
		return gitErr(err)
	}
	return ok(w, d)
}

// gitErr words git's failure for the client: a known state as 404 with
// its message, anything else as an internal error (git's own words, which
// may hold paths, only in the log).
func gitErr(err error) error {
	for _, r := range gitReasons {
		if errors.Is(err, r.err) {
			return errorf(NotFound, "%s", r.err.Error())
		}
	}
	return wrap(Internal, err, "git failed")
}

// sessionChanges answers the files the session's write and edit calls
// changed, in file order.
func (s *Server) sessionChanges(w http.ResponseWriter, r *http.Request) error {
	_, sess, err := s.open(r)
	if err != nil {
		return err
	}
	return ok(w, struct {
		Changes []session.FileChange `json:"changes"`
	}{sess.FileChanges()})
}

// pollGit publishes git_changed on the topic whenever the session's git
// state differs from the last look, until nobody follows it. It also
// publishes one after its first look: a change between a page's
// subscription and that look would otherwise be missed.
func (s *Server) pollGit(topic, cwd string) {
	last := s.gitDigest(cwd)
	s.publishJSON(topic, gitChanged)
	t := time.NewTicker(s.opts.GitPoll)
	defer t.Stop()
	for {
		select {
		case <-s.shutdown:
			return
		case <-t.C:
		}
		if s.pollers.idle(s, topic) {
			return
		}
		if now := s.gitDigest(cwd); now != last {
			last = now
			s.publishJSON(topic, gitChanged)
		}
	}
}

func (s *Server) gitDigest(cwd string) [32]byte {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, _ := s.gitState(ctx, cwd)
	b, _ := json.Marshal(a)
	return sha256.Sum256(b)
}
