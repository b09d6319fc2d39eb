package server

import (
	"encoding/json"
	"net/http"

	"piweb/internal/apitype"
)

// writeDetail writes a session's detail as ok would, its tree last and
// encoded a node at a time as it is written (okStreamed): a huge session's
// tree is most of its detail (75 MB of JSON for a 1 GB linear session),
// and encoding it whole held that and its buffer's growth on top of the
// parse (issue 21 item 11: serve grows by at most 1.5x the file).
func writeDetail(w http.ResponseWriter, d apitype.SessionDetail) error {
	if d.Tree == nil {
		return ok(w, d)
	}
	head := struct {
		apitype.SessionDetail
		Tree *struct{} `json:"tree,omitempty"` // hides the detail's own: written after
	}{SessionDetail: d}
	return okStreamed(w, head, "tree", len(d.Tree), func(i int) ([]byte, error) { return json.Marshal(&d.Tree[i]) })
}
