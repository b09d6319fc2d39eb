package server

import (
	"bufio"
	"encoding/json"
	"net/http"

	"piweb/internal/apitype"
)

// writeDetail writes a session's detail as ok would, byte for byte, with
// its tree encoded a node at a time as it is written: a huge session's
// tree is most of its detail (75 MB of JSON for a 1 GB linear session),
// and encoding it whole held that and its buffer's growth on top of the
// parse (issue 21 item 11: serve grows by at most 1.5x the file).
func writeDetail(w http.ResponseWriter, d apitype.SessionDetail) error {
	if d.Tree == nil {
		return ok(w, d)
	}
	head, err := json.Marshal(struct {
		Session apitype.Item    `json:"session"`
		Header  json.RawMessage `json:"header"`
		Leaf    *string         `json:"leaf"`
	}{d.Session, d.Header, d.Leaf})
	if err != nil {
		return err
	}
	tail, err := json.Marshal(struct {
		Labels   map[string]string `json:"labels"`
		Lineage  apitype.Lineage   `json:"lineage"`
		Problems []apitype.Problem `json:"problems"`
	}{d.Labels, d.Lineage, d.Problems})
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head[:len(head)-1])
	bw.WriteString(`,"tree":[`)
	for i := range d.Tree {
		if i > 0 {
			bw.WriteByte(',')
		}
		b, err := json.Marshal(&d.Tree[i])
		if err != nil {
			return nil // the answer has started: nothing more to say to the client
		}
		bw.Write(b)
	}
	bw.WriteString("],")
	bw.Write(tail[1:])
	bw.WriteByte('\n')
	bw.Flush()
	return nil
}
