package gitx

import (
	"context"
	"errors"

	"piweb/internal/apitype"
)

// View is a folder's git state for the Changes panel: its Status when it is
// in a repository, else why not (Reason: no_git, not_repo, no_dir, timeout,
// unsafe_config) and a message for the user (apitype.GitView, where the API's
// shapes are defined).
type View = apitype.GitView

var reasons = []struct {
	err    error
	reason string
}{{ErrNoGit, "no_git"}, {ErrNotRepo, "not_repo"}, {ErrNoDir, "no_dir"}, {ErrTimeout, "timeout"},
	{ErrUnsafeConfig, "unsafe_config"}}

// Known returns the reason of the known git state (no git, no repository,
// no folder, too slow) that err is, and that state's error, which words
// it for the user; "" and nil for any other failure.
func Known(err error) (reason string, known error) {
	for _, r := range reasons {
		if errors.Is(err, r.err) {
			return r.reason, r.err
		}
	}
	return "", nil
}

// View reads dir's git state; a state git reports (no git, no
// repository, no folder, too slow) is a View, not an error.
func (g *Git) View(ctx context.Context, dir string) (View, error) {
	st, err := g.Status(ctx, dir)
	if err == nil {
		return View{Available: true, Status: st}, nil
	}
	if reason, known := Known(err); known != nil {
		return View{Reason: reason, Message: known.Error()}, nil
	}
	return View{}, err
}
