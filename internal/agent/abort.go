package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Aborting a compaction. pi 0.73.1 has AgentSession.abortCompaction() but
// no RPC command for it (RPC's abort stops the agent loop, which a
// compaction does not use). The bridge extension aborts the AbortController
// pi made for the compaction (see ext/piweb-bridge.ts), and pi ends it as
// abortCompaction() would: compaction_end with aborted, nothing written.
// Without the bridge, or when pi does not end the compaction in time, the
// worker is killed instead: pi appends the compaction entry only at the
// very end, so the file keeps everything before it, and the next command
// starts a new pi on it.

// DefaultAbortCompactionWait bounds the wait for compaction_end after pi
// was asked to abort the compaction (Config.AbortCompactionWait).
const DefaultAbortCompactionWait = 5 * time.Second

// errAbortUnconfirmed is an abort pi did not confirm with compaction_end.
var errAbortUnconfirmed = errors.New("pi did not end the compaction")

// CompactionAbort says how an abort of a compaction went.
type CompactionAbort struct {
	// Running is whether a compaction was running.
	Running bool `json:"running"`
	// Aborted is whether it ended without writing; false with Running
	// means it finished first and its entry is in the file.
	Aborted bool `json:"aborted"`
	// Stopped is whether pi had to be killed to abort it.
	Stopped bool `json:"stopped"`
}

// AbortCompaction aborts the compaction (manual or automatic) that the
// session's worker runs, if any.
func (s *Supervisor) AbortCompaction(ctx context.Context, file string) (CompactionAbort, error) {
	w := s.Live(file)
	if w == nil {
		return CompactionAbort{}, nil
	}
	res, err := w.AbortCompaction(ctx)
	if err == nil || !res.Running || ctx.Err() != nil {
		return res, err
	}
	s.detach(w)
	w.kill("stopped")
	return CompactionAbort{Running: true, Aborted: true, Stopped: true}, nil
}

// AbortCompaction asks pi, through the bridge, to abort its running
// compaction and waits for pi to end it. An error with Running set means
// the abort is unconfirmed (no bridge, or no compaction_end in time).
func (w *Worker) AbortCompaction(ctx context.Context) (CompactionAbort, error) {
	hub := w.Hub()
	_, sub, _ := hub.Subscribe(hub.Last()) // before looking, so the end cannot slip by
	defer sub.Close()
	if !w.Status().Compacting {
		return CompactionAbort{}, nil
	}
	res := CompactionAbort{Running: true}
	if err := w.abortCompactionCall(ctx); err != nil {
		return res, err
	}
	t := time.NewTimer(cmp.Or(w.abortWait, DefaultAbortCompactionWait))
	defer t.Stop()
	for {
		select {
		case e, open := <-sub.C:
			if !open {
				return res, errAbortUnconfirmed
			}
			if e.Type == EvCompactionEnd {
				var end struct{ Aborted bool }
				_ = json.Unmarshal(e.Raw, &end)
				res.Aborted = end.Aborted
				return res, nil
			}
		case <-t.C:
			return res, errAbortUnconfirmed
		case <-ctx.Done():
			return res, ctx.Err()
		case <-w.client.Done():
			return res, w.client.Exit()
		}
	}
}

// abortCompactionCall asks pi to abort its compaction: with RPC abort on
// pi >= 0.85 (which aborts a running compaction or branch summary too),
// through the bridge before.
func (w *Worker) abortCompactionCall(ctx context.Context) error {
	if w.client.Has(VersionAbortCompaction) {
		return w.Do(func(c *Client) error { return c.Abort(ctx) })
	}
	_, err := w.bridgeCall(ctx, "piweb-abort-compact", map[string]any{})
	return err
}

// detach takes w out of the supervisor, as Stop does, so the next command
// on its file starts a new pi.
func (s *Supervisor) detach(w *Worker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[Key(w.Key())]; e != nil && e.w == w {
		e.w = nil
	}
}

// kill ends pi at once with SIGKILL: whatever it had still to write (a
// compaction's entry) is never written.
func (w *Worker) kill(reason string) {
	w.mu.Lock()
	if w.reason == "" {
		w.reason = reason
	}
	w.mu.Unlock()
	w.client.Kill()
}
