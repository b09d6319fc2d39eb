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
// fail with 500). The items are written one by one, never copied into one
// answer: a page may hold a message of tens of MB, which the parse cache
// holds already (issue 21).
func okVerbatim(w http.ResponseWriter, fields any, key string, items []json.RawMessage) error {
	return okStreamed(w, fields, key, len(items), func(i int) ([]byte, error) { return items[i], nil })
}

// okStreamed writes a 200 JSON answer as okVerbatim does, its n items
// made one at a time by item as they are written: no answer is held
// whole. An item that fails ends the answer there (its status is sent).
func okStreamed(w http.ResponseWriter, fields any, key string, n int, item func(int) ([]byte, error)) error {
	head, err := json.Marshal(fields)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	open := jsjson.AppendWithArray(nil, head, key, [][]byte{})
	w.Write(open[:len(open)-2]) // the head and key, without "]}"
	for i := range n {
		if i > 0 {
			w.Write([]byte{','})
		}
		it, err := item(i)
		if err != nil {
			return nil
		}
		if _, err := w.Write(it); err != nil {
			return nil // the client went away; the status is sent
		}
	}
	w.Write([]byte("]}\n"))
	return nil
}
