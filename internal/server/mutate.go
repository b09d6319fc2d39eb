package server

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"strings"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
	"piweb/internal/session"
)

// Body limits: prompts may carry images, other bodies are small.
const (
	maxBody       = 1 << 20
	maxPromptBody = 8 << 20
)

// decodeBody reads a JSON object into v, refusing unknown fields, trailing
// data and bodies over limit. An empty body decodes as {}.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	body := http.MaxBytesReader(w, r.Body, limit)
	data, err := io.ReadAll(body)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return errorf(TooLarge, "request body over %d bytes", limit)
	} else if err != nil {
		return errorf(Invalid, "cannot read body")
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(Invalid, "bad JSON body: %s", jsonErrText(err))
	}
	if dec.More() {
		return errorf(Invalid, "bad JSON body: trailing data")
	}
	return nil
}

// jsonErrText keeps the decoder's explanation without Go type names.
func jsonErrText(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "field " + te.Field + " has the wrong type"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// refresh tells the index and the cache that piweb changed a file.
func (s *Server) refresh(paths ...string) {
	for _, p := range paths {
		s.cache.Forget(p)
		s.cat.Refresh(p)
	}
}

// itemAfter re-reads the session's metadata after a change.
func (s *Server) itemAfter(path string) *catalog.Item {
	s.refresh(path)
	if m, found := s.cat.ByPath(path); found {
		it := s.item(m)
		return &it
	}
	return nil
}

func (s *Server) rename(w http.ResponseWriter, r *http.Request) error {
	var body apitype.RenameRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if body.Name == nil || strings.TrimSpace(*body.Name) == "" {
		return errorf(Invalid, "name must be a non-empty string")
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	// Through a live pi, else straight to the file with no pi starting
	// meanwhile.
	err = s.agent.Rename(r.Context(), m.Path, *body.Name, func() error { return storeErr0(s.store.Rename(m.Path, *body.Name)) })
	if err != nil {
		return agentErr(err)
	}
	return ok(w, apitype.SessionAnswer{Session: s.itemAfter(m.Path)})
}

func (s *Server) label(w http.ResponseWriter, r *http.Request) error {
	var body apitype.LabelRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if body.EntryID == "" {
		return errorf(Invalid, "entryId is required")
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	label := ""
	if body.Label != nil {
		label = strings.TrimSpace(*body.Label)
	}
	err = s.agent.Label(r.Context(), m.Path, body.EntryID, label, func() error { return storeErr0(s.store.Label(m.Path, body.EntryID, label)) })
	if err != nil {
		return agentErr(err)
	}
	it := s.itemAfter(m.Path)
	sess, err := s.load(m.Path)
	if err != nil {
		return err
	}
	return ok(w, apitype.LabelAnswer{Session: it, Labels: sess.LabelMap()})
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	if err := decodeBody(w, r, &struct{}{}, maxBody); err != nil {
		return err
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	if err := s.agent.Stop(r.Context(), m.Path); err != nil {
		return wrap(Internal, err, "cannot stop the agent")
	}
	children := s.cat.ChildFiles(m.Path)
	paths := []string{m.Path}
	for _, c := range children {
		paths = append(paths, c.Path)
	}
	s.live.Deleting(m.Key)
	it, err := s.store.Trash(m.Path, children)
	if errors.Is(err, session.ErrChanged) {
		return errorf(Busy, "the session changed while it was being deleted; try again")
	} else if err != nil {
		return storeErr(err) // a read-only folder is a 403, not a 500
	}
	s.refresh(paths...)
	s.live.Deleted(m.Path)
	return ok(w, apitype.DeleteAnswer{TrashID: it.ID, Session: s.item(m)})
}

func (s *Server) listTrash(w http.ResponseWriter, r *http.Request) error {
	items, err := s.store.ListTrash()
	if err != nil {
		return wrap(Internal, err, "cannot read trash")
	}
	out := []apitype.TrashItem{}
	for _, it := range items {
		e := apitype.TrashItem{TrashID: it.ID, Deleted: it.Deleted}
		if m, found := catalog.ReadMeta(it.File); found {
			m.Path = it.Original
			e.Session = s.item(m)
		}
		out = append(out, e)
	}
	return ok(w, apitype.TrashList{Items: out})
}

// deleteForever removes a trashed session for good.
func (s *Server) deleteForever(w http.ResponseWriter, r *http.Request) error {
	if err := decodeBody(w, r, &struct{}{}, maxBody); err != nil {
		return err
	}
	if err := s.store.DeleteForever(r.PathValue("trashId")); err != nil {
		return storeErr(err)
	}
	return ok(w, struct{}{})
}

func (s *Server) listBackups(w http.ResponseWriter, r *http.Request) error {
	bs := s.store.Backups()
	if bs == nil {
		bs = []session.Backup{}
	}
	return ok(w, apitype.BackupList{Backups: bs, MaxAgeDays: int(session.BackupMaxAge.Hours() / 24)})
}

func (s *Server) restore(w http.ResponseWriter, r *http.Request) error {
	if err := decodeBody(w, r, &struct{}{}, maxBody); err != nil {
		return err
	}
	it, err := s.store.Restore(r.PathValue("trashId"))
	switch {
	case errors.Is(err, session.ErrTrashItem):
		return errorf(NotFound, "trash item not found")
	case errors.Is(err, fs.ErrExist):
		return errorf(Busy, "a file already exists where the session was")
	case err != nil:
		return wrap(Internal, err, "cannot restore")
	}
	s.refresh(it.Repointed...)
	return ok(w, apitype.SessionAnswer{Session: s.itemAfter(it.Original)})
}

func (s *Server) fork(w http.ResponseWriter, r *http.Request) error {
	var body apitype.ForkRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if body.EntryID == "" {
		return errorf(Invalid, "entryId is required")
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	np, text, err := s.store.Fork(m.Path, body.EntryID)
	if err != nil {
		return storeErr(err)
	}
	return s.answerNew(w, np, &text)
}

func (s *Server) clone(w http.ResponseWriter, r *http.Request) error {
	var body apitype.CloneRequest
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	m, err := s.lookup(r)
	if err != nil {
		return err
	}
	np, err := s.store.Clone(m.Path, body.Leaf)
	if err != nil {
		return storeErr(err)
	}
	return s.answerNew(w, np, nil)
}

// answerNew reports a session file piweb just created.
func (s *Server) answerNew(w http.ResponseWriter, path string, text *string) error {
	s.refresh(path)
	nm, found := s.cat.ByPath(path)
	if !found {
		return errorf(Internal, "the new session could not be read back")
	}
	return ok(w, apitype.NewSession{ID: nm.Key, Path: nm.Path, Text: text})
}

// storeErr0 is storeErr keeping nil as nil.
func storeErr0(err error) error {
	if err == nil {
		return nil
	}
	return storeErr(err)
}
