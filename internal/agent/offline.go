package agent

import (
	"context"
	"fmt"

	"piweb/internal/sessionstore"
	"piweb/pisession"
)

// SessionFiles is the default OfflineWriter: it appends to the file with
// internal/sessionstore (one O_APPEND write per line, refused when the file
// changed between reading and writing).
type SessionFiles struct{}

// SetLabel appends a label entry after the file's leaf.
func (SessionFiles) SetLabel(file, entryID, label string) error {
	s, err := pisession.Load(file)
	if err != nil {
		return err
	}
	if _, err := sessionstore.AppendLabel(file, s, entryID, label); err != nil {
		return fmt.Errorf("label %s: %w", entryID, err)
	}
	return nil
}

// SetSessionName appends a session_info entry.
func (SessionFiles) SetSessionName(file, name string) error {
	s, err := pisession.Load(file)
	if err != nil {
		return err
	}
	if _, err := sessionstore.AppendName(file, s, name); err != nil {
		return fmt.Errorf("name session: %w", err)
	}
	return nil
}

// offline runs write on the file directly when the session has no live
// worker and none is starting; otherwise it uses the worker.
func (s *Supervisor) offline(ctx context.Context, file string, live func(*Worker) error, write func(OfflineWriter, string) error) error {
	key := Key(file)
	s.mu.Lock()
	var w *Worker
	var starting *startOp
	if e := s.entries[key]; e != nil {
		w, starting = e.w, e.starting
	}
	s.mu.Unlock()
	if starting != nil {
		select {
		case <-starting.done:
			w = starting.w
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if w != nil {
		return live(w)
	}
	return write(s.cfg.Offline, key)
}

// Exclusive runs live with the session's worker when one runs (or is
// starting: the start is waited for), and otherwise runs offline while
// holding the supervisor's lock, so that no pi can start on the file until
// offline's write is done: a check for a live pi and the write have no gap
// between them in which pi could open the file and then see the write as
// another process's.
func (s *Supervisor) Exclusive(ctx context.Context, file string, live func(*Worker) error, offline func() error) error {
	key := Key(file)
	for {
		s.mu.Lock()
		e := s.entries[key]
		if e != nil && e.starting != nil {
			op := e.starting
			s.mu.Unlock()
			select {
			case <-op.done:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if e != nil && e.w != nil && !e.w.exited() {
			w := e.w
			s.mu.Unlock()
			return live(w)
		}
		defer s.mu.Unlock()
		return offline()
	}
}

// SetLabel labels an entry: through the live worker's bridge extension
// (pi keeps its leaf in memory), or directly in the file when no worker
// runs.
func (s *Supervisor) SetLabel(ctx context.Context, file, entryID, label string) error {
	return s.offline(ctx, file,
		func(w *Worker) error { return w.SetLabel(ctx, entryID, label) },
		func(o OfflineWriter, key string) error { return o.SetLabel(key, entryID, label) })
}

// SetSessionName names a session, through its worker when live.
func (s *Supervisor) SetSessionName(ctx context.Context, file, name string) error {
	return s.offline(ctx, file,
		func(w *Worker) error { return w.Do(func(c *Client) error { return c.SetSessionName(ctx, name) }) },
		func(o OfflineWriter, key string) error { return o.SetSessionName(key, name) })
}

// Prompt sends a user message to a session, starting (or restarting after
// a crash) its worker first: the "next command may restart it" path. A
// prompt that fails because pi died meanwhile is not resent, since pi may
// have received it.
func (s *Supervisor) Prompt(ctx context.Context, file, text string, o PromptOptions) (*Worker, error) {
	w, err := s.Worker(ctx, file)
	if err != nil {
		return nil, err
	}
	return w, w.Prompt(ctx, text, o)
}
