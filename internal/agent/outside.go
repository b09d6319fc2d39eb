package agent

import "errors"

// ErrStale is a prompt refused because another process appended to the
// session file since pi loaded it: pi would continue from its in-memory
// leaf and fork the file behind the user's back. Reload or fork first, or
// pass PromptOptions.Force.
var ErrStale = errors.New("session file changed outside piweb")

// fileTracker watches the session file of a worker.
type fileTracker struct{}

func (w *Worker) checkStale() error { return nil }

func newFileTracker(file string) *fileTracker { return nil }

func (w *Worker) noteOwnWrite() {}
