package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/sessionstore"
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
		return errs.Errorf(errs.TooLarge, "request body over %d bytes", limit)
	} else if err != nil {
		return errs.Errorf(errs.Invalid, "cannot read body")
	}
	if len(strings.TrimSpace(string(data))) == 0 {
		data = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errs.Errorf(errs.Invalid, "bad JSON body: %s", jsonErrText(err))
	}
	if dec.More() {
		return errs.Errorf(errs.Invalid, "bad JSON body: trailing data")
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

// answer encodes v, or returns err for writeError.
func answer[T any](w http.ResponseWriter, v T, err error) error {
	if err != nil {
		return err
	}
	return ok(w, v)
}

// sessionRequest decodes the body into a T (at most maxBody bytes),
// checks it with check (nil: any) and finds the session named by {id}, in
// that order, as every session mutation does.
func sessionRequest[T any](s *Server, w http.ResponseWriter, r *http.Request, check func(T) error) (T, Meta, error) {
	var body T
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return body, Meta{}, err
	}
	if check != nil {
		if err := check(body); err != nil {
			return body, Meta{}, err
		}
	}
	m, err := s.lookup(r)
	return body, m, err
}

// need is an Invalid error saying msg unless cond holds.
func need(cond bool, msg string) error {
	if cond {
		return nil
	}
	return errs.Errorf(errs.Invalid, "%s", msg)
}

func (s *Server) rename(w http.ResponseWriter, r *http.Request) error {
	body, m, err := sessionRequest(s, w, r, func(b apitype.RenameRequest) error {
		return need(b.Name != nil && strings.TrimSpace(*b.Name) != "", "name must be a non-empty string")
	})
	if err != nil {
		return err
	}
	a, err := s.ops.Rename(r.Context(), m, *body.Name)
	return answer(w, a, err)
}

func (s *Server) label(w http.ResponseWriter, r *http.Request) error {
	body, m, err := sessionRequest(s, w, r, func(b apitype.LabelRequest) error {
		return need(b.EntryID != "", "entryId is required")
	})
	if err != nil {
		return err
	}
	label := ""
	if body.Label != nil {
		label = strings.TrimSpace(*body.Label)
	}
	a, err := s.ops.Label(r.Context(), m, body.EntryID, label)
	return answer(w, a, err)
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	_, m, err := sessionRequest[struct{}](s, w, r, nil)
	if err != nil {
		return err
	}
	a, err := s.ops.Delete(r.Context(), m)
	return answer(w, a, err)
}

func (s *Server) listTrash(w http.ResponseWriter, r *http.Request) error {
	a, err := s.ops.Trash()
	return answer(w, a, err)
}

// deleteForever removes a trashed session for good.
func (s *Server) deleteForever(w http.ResponseWriter, r *http.Request) error {
	if err := decodeBody(w, r, &struct{}{}, maxBody); err != nil {
		return err
	}
	if err := s.store.DeleteForever(r.PathValue("trashId")); err != nil {
		return err
	}
	return ok(w, struct{}{})
}

func (s *Server) listBackups(w http.ResponseWriter, r *http.Request) error {
	bs := s.store.Backups()
	if bs == nil {
		bs = []sessionstore.Backup{}
	}
	return ok(w, apitype.BackupList{Backups: bs, MaxAgeDays: int(sessionstore.BackupMaxAge.Hours() / 24)})
}

func (s *Server) restore(w http.ResponseWriter, r *http.Request) error {
	if err := decodeBody(w, r, &struct{}{}, maxBody); err != nil {
		return err
	}
	a, err := s.ops.Restore(r.PathValue("trashId"))
	return answer(w, a, err)
}

func (s *Server) fork(w http.ResponseWriter, r *http.Request) error {
	body, m, err := sessionRequest(s, w, r, func(b apitype.ForkRequest) error {
		return need(b.EntryID != "", "entryId is required")
	})
	if err != nil {
		return err
	}
	a, err := s.ops.Fork(m, body)
	return answer(w, a, err)
}

func (s *Server) clone(w http.ResponseWriter, r *http.Request) error {
	body, m, err := sessionRequest[apitype.CloneRequest](s, w, r, nil)
	if err != nil {
		return err
	}
	a, err := s.ops.Clone(m, body)
	return answer(w, a, err)
}
