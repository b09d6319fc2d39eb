package gitx

import (
	"context"
	"sync"
	"time"

	"piweb/internal/opt"
)

// RepoCache answers which repository each of many folders belongs to (the
// sidebar groups the sessions of one repository's worktrees), asking git
// at most a few folders at a time and remembering each answer for TTL.
type RepoCache struct {
	Git *Git
	TTL time.Duration
	Now func() time.Time

	mu sync.Mutex
	m  map[string]repoEntry
}

type repoEntry struct {
	repo *Repo // nil: not in a repository
	at   time.Time
}

// Repos maps each folder of dirs that is in a git repository to it.
func (c *RepoCache) Repos(ctx context.Context, dirs []string) map[string]*Repo {
	out := map[string]*Repo{}
	var mu sync.Mutex // guards out: the lookups of uncached folders write it meanwhile
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, d := range dirs {
		if r, ok := c.cached(d); ok {
			if r != nil {
				mu.Lock()
				out[d] = r
				mu.Unlock()
			}
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := c.Git.RepoOf(ctx, d)
			if err != nil {
				r = nil
			}
			if ctx.Err() == nil {
				c.store(d, r)
			}
			if r != nil {
				mu.Lock()
				out[d] = r
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

func (c *RepoCache) now() time.Time {
	return opt.Now(c.Now)
}

func (c *RepoCache) cached(d string) (*Repo, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[d]
	if !ok || c.now().Sub(e.at) > c.TTL {
		return nil, false
	}
	return e.repo, true
}

func (c *RepoCache) store(d string, r *Repo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]repoEntry{}
	}
	c.m[d] = repoEntry{r, c.now()}
}
