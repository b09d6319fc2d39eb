package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// family is a 3-level chain of forks with siblings (GP, P forked from it,
// C1 and S1 from P, C2 and S2 from C1) plus the forks a run makes: each
// session's lineage parent and its bytes after the header, by header id.
type family struct {
	names  map[string]string // name -> header id
	parent map[string]string // id -> lineage parent's id
	body   map[string][]byte // id -> the bytes after its header line
}

func newFamily(proj string) *family {
	f := &family{names: map[string]string{}, parent: map[string]string{}, body: map[string][]byte{}}
	path := map[string]string{}
	for _, n := range []string{"GP", "P", "C1", "S1", "C2", "S2"} {
		par := map[string]string{"P": "GP", "C1": "P", "S1": "P", "C2": "C1", "S2": "C1"}[n]
		p, id := genSession(proj, 3, 6, 2000, path[par])
		path[n], f.names[n] = p, id
		if par != "" {
			f.parent[id] = f.names[par]
		}
		b, _ := os.ReadFile(p)
		_, f.body[id], _ = bytes.Cut(b, []byte("\n"))
	}
	return f
}

// lineageOrder is a random order of deleting and restoring P, C1, C2 and
// S1 (each deleted once, then restored), with forks and renames of random
// family members put in at random places.
func lineageOrder() []string {
	var seq []string
	state := map[string]int{}
	names := []string{"P", "C1", "C2", "S1"}
	for len(seq) < 8 {
		n := names[rand.IntN(len(names))]
		if state[n] < 2 {
			state[n]++
			seq = append(seq, []string{"", "D", "R"}[state[n]]+":"+n)
		}
	}
	for range 3 {
		ev := []string{"F", "N"}[rand.IntN(2)] + ":" + []string{"P", "C1", "C2", "S1", "S2"}[rand.IntN(5)]
		i := rand.IntN(len(seq) + 1)
		seq = append(seq[:i], append([]string{ev}, seq[i:]...)...)
	}
	return seq
}

// killLineage runs orders of delete, restore, fork and rename through a
// server killed at a random moment of each (or right after it), restarting
// it for each (its start-up recovers), and checks after every start that
// every session is whole in exactly one place and every fork names its
// nearest in-place ancestor.
func (h *harness) killLineage() *tally {
	tl := &tally{name: "kill -9 lineage"}
	inputs := max(h.n/5, 4)
	dur := map[string]time.Duration{} // how long each kind of request takes uninterrupted
	for range inputs {
		agent, proj := h.newAgent(h.t.TempDir())
		f := newFamily(proj)
		seq := lineageOrder()
		lastFork := ""
		for _, ev := range seq {
			s := h.startServe(agent)
			f.discover(agent, lastFork, tl)
			f.check(agent, tl, "at a start")
			op, name, _ := strings.Cut(ev, ":")
			method, path, body := f.request(s, op, f.names[name])
			lastFork = ""
			if method == "" {
				s.kill()
				continue
			}
			if op == "F" {
				lastFork = f.names[name]
			}
			h.killDuring(s, op, method, path, body, dur, tl)
		}
		s := h.startServe(agent)
		f.discover(agent, lastFork, tl)
		s.stop()
		bad := f.check(agent, tl, "at the end")
		tl.files += len(f.body)
		tl.intact += len(f.body) - bad
		if ageTemps(agent) > 0 { // piweb's next start, some time later, removes them
			h.startServe(agent).stop()
		}
		tmp, backups := debris(agent, tl)
		tl.leftovers += tmp
		tl.backups += backups
	}
	sum := fmt.Sprintf("%d inputs (random orders of 8 deletes and restores of P, C1, C2, S1 with 3 forks or renames) tried, "+
		"%d kill iterations, %d violations (lineage %d, lost %d, duplicated %d, torn %d)", inputs, tl.killed,
		tl.orphans+tl.lost+tl.dup+tl.torn, tl.orphans, tl.lost, tl.dup, tl.torn)
	tl.notes = append([]string{sum}, tl.notes...)
	return tl
}

// killDuring sends one request and kills the server: half the time at a
// random moment of the request (uniform over 1.2 times what this kind of
// request takes), else right after its answer, so that orders go on.
func (h *harness) killDuring(s *server, op, method, path, body string, dur map[string]time.Duration, tl *tally) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan int, 1)
	start := time.Now()
	go func() { got <- s.send(ctx, method, path, body) }()
	wait := time.Minute
	if d, ok := dur[op]; ok && rand.IntN(2) == 0 {
		wait = time.Duration(rand.Int64N(int64(d)*6/5 + 1))
	}
	select {
	case code := <-got:
		if d, ok := dur[op]; ok {
			dur[op] = (d + time.Since(start)) / 2
		} else {
			dur[op] = time.Since(start)
		}
		if code != 200 {
			tl.failed++
			tl.note("%s %s: %d", method, path, code)
		}
	case <-time.After(wait):
		tl.killed++
	}
	s.kill()
	tl.runs++
}

// request is the HTTP request of an event on the session id, or "" when
// it does not apply now (deleting a trashed session).
func (f *family) request(s *server, op, id string) (method, path, body string) {
	live := map[string]bool{}
	for _, k := range s.ids("/api/sessions?limit=1000", "sessions", "id") {
		live[k] = true
	}
	switch {
	case op == "D" && live[id]:
		return "DELETE", "/api/sessions/" + id, "{}"
	case op == "R" && !live[id]:
		if tid := trashID(s, id); tid != "" {
			return "POST", "/api/trash/" + tid + "/restore", "{}"
		}
	case op == "F" && live[id]:
		return "POST", "/api/sessions/" + id + "/fork", `{"entryId":"00000003"}`
	case op == "N" && live[id]:
		return "POST", "/api/sessions/" + id + "/rename", fmt.Sprintf(`{"name":"name %d"}`, rand.IntN(1000))
	}
	return "", "", ""
}

// trashID is the trash item of the session id.
func trashID(s *server, id string) string {
	_, b := s.do(context.Background(), "GET", "/api/trash")
	var v struct {
		Items []struct {
			TrashID string `json:"trashId"`
			Session struct {
				ID string `json:"id"`
			} `json:"session"`
		} `json:"items"`
	}
	json.Unmarshal(b, &v)
	for _, it := range v.Items {
		if strings.HasPrefix(it.Session.ID, id) {
			return it.TrashID
		}
	}
	return ""
}

func (s *server) send(ctx context.Context, method, path, body string) int {
	req, _ := http.NewRequestWithContext(ctx, method, s.base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

// discover adds the sessions a fork of lastFork made to the family.
func (f *family) discover(agent, lastFork string, tl *tally) {
	for _, p := range sessionFiles(agent) {
		id, _ := header(p)
		if _, known := f.body[id]; known {
			continue
		}
		if lastFork == "" {
			tl.note("an unknown session %s appeared", id)
		}
		b, _ := os.ReadFile(p)
		_, f.body[id], _ = bytes.Cut(b, []byte("\n"))
		f.parent[id] = lastFork
	}
}

// check counts sessions not in exactly one place, bytes lost or torn, and
// in-place forks that do not name their nearest in-place ancestor; it
// returns how many sessions are not whole in one place.
func (f *family) check(agent string, tl *tally, when string) (bad int) {
	where, live := map[string][]string{}, map[string]string{}
	for _, p := range sessionFiles(agent) {
		id, _ := header(p)
		where[id] = append(where[id], p)
		if !inTrash(p) {
			live[id] = p
		}
	}
	for id, body := range f.body {
		if n := len(where[id]); n != 1 {
			tl.dup += btoi(n > 1)
			tl.lost += btoi(n == 0)
			tl.note("%s: session %s in %d places", when, id[:8], n)
			bad++
			continue
		}
		b, _ := os.ReadFile(where[id][0])
		if _, rest, _ := bytes.Cut(b, []byte("\n")); !bytes.HasPrefix(rest, body) {
			tl.lost++
			tl.note("%s: session %s lost bytes", when, id[:8])
			bad++
		}
		tl.torn += badLines(b)
	}
	for id, p := range live {
		want := f.parent[id]
		for want != "" && live[want] == "" {
			want = f.parent[want]
		}
		if _, got := header(p); want != "" && got != live[want] {
			tl.orphans++
			tl.note("%s: %s names %q, its nearest in-place ancestor is %s", when, id[:8], filepath.Base(got), filepath.Base(live[want]))
		}
	}
	return bad
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
