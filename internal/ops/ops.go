// Package ops runs the session mutations that take more than one part of
// piweb: delete, restore, rename, label, fork, clone and repair each combine the
// agent (a live pi, or none), the session store, the catalog and the live
// topics in one call, so that HTTP handlers only decode, call and encode.
// It knows nothing of HTTP: its errors say which step failed (*StepError),
// and, as errs.Classified, what kind of failure that is for the client.
package ops

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/errs"
	"piweb/internal/live"
	"piweb/internal/naming"
	"piweb/internal/sessionstore"
)

// Ops holds what the mutations combine. Every field but Names must be set.
type Ops struct {
	Agent agent.Adapter
	Store *sessionstore.Store
	Cat   *catalog.Catalog
	Cache *sessionstore.Cache
	Live  *live.Relay
	// Names names the sessions Create makes, and forks at a first message,
	// when their first run ends;
	// nil leaves them unnamed.
	Names *naming.Namer
}

// Step names the part of a mutation that failed.
type Step int

// The steps a StepError names.
const (
	StepStore      Step = iota // the session store's write
	StepAgentStore             // the store's write the agent made when no pi was live
	StepStop                   // stopping the session's agent before a delete
	StepTrash                  // moving the session to the trash
	StepListTrash              // reading the trash
	StepRestore                // taking the session back out of the trash
	StepLoad                   // reading the session back after a change
	StepReadBack               // finding a new session in the catalog
	StepTrust                  // reading pi's trust of a project
	StepRepair                 // rewriting a damaged session file
)

// StepError is a mutation's failure at Step; Err is the cause, matched
// with errors.Is and errors.As through Unwrap.
type StepError struct {
	Step Step
	Err  error
}

func (e *StepError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *StepError) Unwrap() error { return e.Err }

// ErrorKind is the failure's kind for the client (errs.Classified): the
// cause's own where the step lets it through, else the step's.
func (e *StepError) ErrorKind() errs.Kind { k, _ := e.classify(); return k }

// ClientMessage words the failure for the client: the cause's message
// with its kind, else the step's.
func (e *StepError) ClientMessage() string { _, m := e.classify(); return m }

// classify is the one place a step's failure is worded. A file that
// changed meanwhile is errs.Stale whichever step met it.
func (e *StepError) classify() (errs.Kind, string) {
	switch e.Step {
	case StepStore, StepAgentStore, StepRepair:
		if e.Step == StepRepair && !errors.Is(e.Err, sessionstore.ErrChanged) {
			return errs.Internal, "cannot repair the session file"
		}
		return causeOr(e.Err, "cannot write session")
	case StepTrash:
		if errors.Is(e.Err, sessionstore.ErrChanged) {
			return errs.Stale, "the session changed while it was being deleted; try again"
		}
		return causeOr(e.Err, "cannot write session") // a read-only folder is a 403, not a 500
	case StepRestore:
		if errors.Is(e.Err, fs.ErrExist) {
			return errs.Busy, "a file already exists where the session was"
		} else if errors.Is(e.Err, sessionstore.ErrTrashItem) {
			return causeOr(e.Err, "")
		}
		return errs.Internal, "cannot restore"
	case StepLoad:
		return causeOr(e.Err, "cannot read session")
	}
	return errs.Internal, stepWords[e.Step]
}

// stepWords word the steps whose failures are piweb's own.
var stepWords = map[Step]string{
	StepStop:      "cannot stop the agent",
	StepListTrash: "cannot read trash",
	StepTrust:     "cannot read pi's trust.json",
	StepReadBack:  "the new session could not be read back",
}

// causeOr is err's kind and message when it has a kind, else Internal
// with msg.
func causeOr(err error, msg string) (errs.Kind, string) {
	if k := errs.KindOf(err); k != errs.Internal {
		return k, errs.Message(err)
	}
	return errs.Internal, msg
}

// fail is a StepError, nil for nil.
func fail(step Step, err error) error {
	if err == nil {
		return nil
	}
	return &StepError{Step: step, Err: err}
}

// Refresh tells the index and the cache that piweb changed the files.
func (o *Ops) Refresh(paths ...string) {
	for _, p := range paths {
		o.Cache.Forget(p)
		o.Cat.Refresh(p)
	}
}

// ItemAfter re-reads the session's metadata after a change; nil when the
// catalog does not list it.
func (o *Ops) ItemAfter(path string) *catalog.Item {
	o.Refresh(path)
	if m, found := o.Cat.ByPath(path); found {
		it := o.Live.Item(m)
		return &it
	}
	return nil
}

// Rename names the session: through its live pi, else straight to the
// file with no pi starting meanwhile.
func (o *Ops) Rename(ctx context.Context, m catalog.Meta, name string) (apitype.SessionAnswer, error) {
	err := o.Agent.Rename(ctx, m.Path, name, func() error { return fail(StepAgentStore, o.Store.Rename(m.Path, name)) })
	if err != nil {
		return apitype.SessionAnswer{}, err
	}
	return apitype.SessionAnswer{Session: o.ItemAfter(m.Path)}, nil
}

// Label sets (or with "" removes) an entry's label, as Rename writes.
func (o *Ops) Label(ctx context.Context, m catalog.Meta, entryID, label string) (apitype.LabelAnswer, error) {
	err := o.Agent.Label(ctx, m.Path, entryID, label, func() error { return fail(StepAgentStore, o.Store.Label(m.Path, entryID, label)) })
	if err != nil {
		return apitype.LabelAnswer{}, err
	}
	it := o.ItemAfter(m.Path)
	sess, err := o.Cache.Load(m.Path)
	if err != nil {
		return apitype.LabelAnswer{}, fail(StepLoad, err)
	}
	return apitype.LabelAnswer{Session: it, Labels: sess.LabelMap()}, nil
}

// Delete stops the session's agent and moves the session with its child
// files to the trash, telling the live topics before and after.
func (o *Ops) Delete(ctx context.Context, m catalog.Meta) (apitype.DeleteAnswer, error) {
	if err := o.Agent.Stop(ctx, m.Path); err != nil {
		return apitype.DeleteAnswer{}, fail(StepStop, err)
	}
	// The forks are found in the files (the catalog may lag a start-up
	// recovery); the catalog only adds the folders they may be in.
	var dirs []string
	for _, c := range o.Cat.ChildFiles(m.Path) {
		dirs = append(dirs, filepath.Dir(c.Path))
	}
	o.Live.Deleting(m.Key)
	it, err := o.Store.Trash(m.Path, dirs)
	if err != nil {
		return apitype.DeleteAnswer{}, fail(StepTrash, err)
	}
	o.Refresh(append([]string{m.Path}, it.Repointed...)...)
	o.Live.Deleted(m.Path)
	return apitype.DeleteAnswer{TrashID: it.ID, Session: o.Live.Item(m)}, nil
}

// Trash lists the trashed sessions, each under the path it had.
func (o *Ops) Trash() (apitype.TrashList, error) {
	items, err := o.Store.ListTrash()
	if err != nil {
		return apitype.TrashList{}, fail(StepListTrash, err)
	}
	out := []apitype.TrashItem{}
	for _, it := range items {
		e := apitype.TrashItem{TrashID: it.ID, Deleted: it.Deleted}
		if m, found := catalog.ReadMeta(it.File); found {
			m.Path = it.Original
			e.Session = o.Live.Item(m)
		}
		out = append(out, e)
	}
	return apitype.TrashList{Items: out}, nil
}

// Restore puts a trashed session back where it was.
func (o *Ops) Restore(trashID string) (apitype.SessionAnswer, error) {
	it, err := o.Store.Restore(trashID)
	if err != nil {
		return apitype.SessionAnswer{}, fail(StepRestore, err)
	}
	o.Refresh(it.Repointed...)
	return apitype.SessionAnswer{Session: o.ItemAfter(it.Original)}, nil
}

// Fork makes a new session of the branch before the user message
// req.EntryID, in req.Cwd when set.
func (o *Ops) Fork(m catalog.Meta, req apitype.ForkRequest) (apitype.NewSession, error) {
	np, text, err := o.Store.Fork(m.Path, req.EntryID, req.Cwd)
	if err != nil {
		return apitype.NewSession{}, fail(StepStore, err)
	}
	ns, err := o.answerNew(np, &text)
	if nm, _ := o.Cat.ByPath(np); err == nil && o.Names != nil && nm.MessageCount == 0 {
		o.Names.Forked(ns.ID, np) // forked at the first message: named from the message sent
	}
	return ns, err
}

// Clone makes a new session of the branch up to req.Leaf (every branch
// with req.All), in req.Cwd when set.
func (o *Ops) Clone(m catalog.Meta, req apitype.CloneRequest) (apitype.NewSession, error) {
	np, err := o.Store.Clone(m.Path, req.Leaf, req.Cwd, req.All)
	if err != nil {
		return apitype.NewSession{}, fail(StepStore, err)
	}
	return o.answerNew(np, nil)
}

// errReadBack is a new session file the catalog does not list.
var errReadBack = errors.New("the new session is not in the catalog")

// answerNew reports a session file piweb just created.
func (o *Ops) answerNew(path string, text *string) (apitype.NewSession, error) {
	o.Refresh(path)
	nm, found := o.Cat.ByPath(path)
	if !found {
		return apitype.NewSession{}, fail(StepReadBack, errReadBack)
	}
	return apitype.NewSession{ID: nm.Key, Path: nm.Path, Text: text}, nil
}

// Create starts a new session with pi and follows it before the index
// lists it (live.Relay.Created), so that its page opens at once, and
// names it when its first run ends.
func (o *Ops) Create(ctx context.Context, req agent.CreateRequest) (apitype.Created, error) {
	id, path, err := o.Agent.Create(ctx, req)
	if err != nil {
		return apitype.Created{}, err
	}
	m := catalog.Meta{ID: id, Key: id, Path: path, Cwd: req.Cwd, FirstMessage: req.Message, Created: float64(time.Now().UnixMilli())}
	m.Modified = m.Created
	if o.Names != nil {
		o.Names.Created(id, path, req.Message)
	}
	o.Live.Created(m)
	o.Refresh(path)
	return apitype.Created{ID: id}, nil
}
