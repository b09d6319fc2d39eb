package server

import (
	"errors"
	"net/http"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/cwdfs"
	"piweb/internal/gitx"
)

// Worktrees of a session's repository (gitx does the work) and, for the
// sidebar, the repository of every project folder.

func (s *Server) listWorktrees(w http.ResponseWriter, r *http.Request, m Meta) error {
	a := apitype.Worktrees{Worktrees: []gitx.Worktree{}}
	repo, err := s.git.RepoOf(r.Context(), m.Cwd)
	if err == nil {
		a.Worktrees, err = s.git.Worktrees(r.Context(), m.Cwd)
	}
	if err != nil {
		g, gerr := s.git.View(r.Context(), m.Cwd)
		if gerr != nil || g.Available {
			return err
		}
		a.GitView = g
		return ok(w, a)
	}
	a.Available, a.Repo = true, repo
	return ok(w, a)
}

// addWorktree makes a worktree in a new folder beside the main worktree,
// on a new branch.
func (s *Server) addWorktree(w http.ResponseWriter, r *http.Request, m Meta) error {
	var req apitype.AddWorktree
	if err := decodeBody(w, r, &req, 4<<10); err != nil {
		return err
	}
	if err := cwdfs.CheckName(req.Folder); err != nil {
		return err
	}
	path, err := s.git.PathBeside(r.Context(), m.Cwd, req.Folder)
	if err != nil {
		return err
	}
	err = s.git.AddWorktree(r.Context(), m.Cwd, path, req.Branch, req.Base)
	return answer(w, gitx.Worktree{Path: path, Branch: req.Branch}, err)
}

// removeWorktree removes one of the repository's worktrees; one with
// uncommitted changes only when the user confirmed (force).
func (s *Server) removeWorktree(w http.ResponseWriter, r *http.Request, m Meta) error {
	var req apitype.RemoveWorktree
	if err := decodeBody(w, r, &req, 4<<10); err != nil {
		return err
	}
	err := s.git.RemoveWorktree(r.Context(), m.Cwd, req.Path, req.Force)
	if errors.Is(err, gitx.ErrDirty) {
		// Not an error: the page asks the user and sends force.
		return ok(w, apitype.RemoveAnswer{Dirty: true})
	}
	return answer(w, apitype.RemoveAnswer{Removed: true}, err)
}

// listRepos maps every project folder in a git repository to it.
func (s *Server) listRepos(w http.ResponseWriter, r *http.Request) error {
	metas, _, err := s.cat.List(r.Context(), ListQuery{Sort: "modified"})
	if err != nil {
		return err
	}
	return ok(w, apitype.Repos{Repos: s.repos.Repos(r.Context(), catalog.Folders(metas, 500))})
}
