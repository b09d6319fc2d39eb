package server

import (
	"encoding/json"
	"fmt"
	"net/http"

	"piweb/internal/jsjson"
)

// okVerbatim writes a 200 JSON answer: the object head (a struct) plus
// key, an array of items copied as they are. The items are lines (or members of
// lines) session.Parser already validated as JSON.parse would; encoding/json
// would validate them again and refuse any nested over 10,000 deep (a
// message pi wrote and reads back nested 100,000 deep made these routes
// fail with 500).
func okVerbatim(w http.ResponseWriter, fields any, key string, items []json.RawMessage) error {
	head, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(append(jsjson.AppendWithArray(nil, head, key, items), '\n'))
	return nil
}
