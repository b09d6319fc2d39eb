package server

import (
	"encoding/json"
	"fmt"
	"net/http"
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
	name, _ := json.Marshal(key)
	size := len(head) + len(name) + 8
	for _, it := range items {
		size += len(it) + 1
	}
	b := make([]byte, 0, size)
	b = append(b, head[:len(head)-1]...) // without the closing brace
	if len(head) > 2 {
		b = append(b, ',')
	}
	b = append(append(b, name...), ":["...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, "]}\n"...)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
	return nil
}
