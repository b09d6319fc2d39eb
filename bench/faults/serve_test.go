package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// server is a running `piweb serve` without pi.
type server struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

func (h *harness) startServe(agent string) *server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := h.command(agent, "serve", "--addr", addr, "--agent-dir", agent, "--pi", "/nonexistent/pi")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	s := &server{cmd: cmd, base: "http://" + addr, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(s.base + "/api/status"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
	}
	s.kill()
	h.t.Fatal("piweb serve did not start")
	return nil
}

func (s *server) kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

func (s *server) stop() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.kill()
	}
}

func (s *server) do(ctx context.Context, method, path string) (int, []byte) {
	req, _ := http.NewRequestWithContext(ctx, method, s.base+path, strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// ids lists what the server answers under path: the values of key.
func (s *server) ids(path, list, key string) []string {
	_, b := s.do(context.Background(), "GET", path)
	var v map[string][]map[string]any
	json.Unmarshal(b, &v)
	var out []string
	for _, it := range v[list] {
		if id, ok := it[key].(string); ok {
			out = append(out, id)
		}
	}
	return out
}

// killServe kills the server at a random moment of a delete or a restore,
// n times each, restarting it each time (its start-up recovers), then
// checks that every session is in exactly one place and every fork still
// names its live parent.
func (h *harness) killServe() []*tally {
	agent, proj := h.newAgent(h.t.TempDir())
	parents := map[string]string{} // child header id -> parent header id
	all := map[string]bool{}
	for range 12 {
		p, pid := genSession(proj, 3, 100, 2000, "")
		all[pid] = true
		for range 2 {
			_, cid := genSession(proj, 3, 20, 500, p)
			all[cid] = true
			parents[cid] = pid
		}
	}
	del, res := &tally{name: "kill -9 delete"}, &tally{name: "kill -9 restore"}
	dur := map[string]time.Duration{"DELETE": 300 * time.Millisecond, "POST": 300 * time.Millisecond}
	prev, orphans := "", 0
	for i := range 2 * h.n {
		s := h.startServe(agent)
		if n := countOrphans(agent, parents); n > orphans {
			del.note("after a kill during %s, %d forks no longer name their live parent", prev, n-orphans)
			orphans = n
		}
		method, path, tl := "DELETE", "", del
		live, trash := s.ids("/api/sessions?limit=1000", "sessions", "id"), s.ids("/api/trash", "items", "trashId")
		if i%2 == 1 && len(trash) > 0 || len(live) == 0 {
			method, path, tl = "POST", "/api/trash/"+trash[rand.IntN(len(trash))]+"/restore", res
		} else {
			path = "/api/sessions/" + live[rand.IntN(len(live))]
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan int, 1)
		start := time.Now()
		go func() { code, _ := s.do(ctx, method, path); got <- code }()
		delay := time.Duration(rand.Int64N(int64(dur[method])*6/5 + 1))
		select {
		case code := <-got:
			dur[method] = (dur[method] + time.Since(start)) / 2
			if code != 200 {
				tl.failed++
				tl.note("%s %s: %d", method, path, code)
			}
			s.kill()
		case <-time.After(delay):
			s.kill()
			tl.killed++
		}
		cancel()
		tl.runs++
		prev = method + " " + path
	}
	if raw := ageTemps(agent); raw > 0 {
		del.note("%d temp files before the last start, some time later (which removes them)", raw)
	}
	s := h.startServe(agent) // recovers the last kill
	trashItems := s.ids("/api/trash", "items", "trashId")
	for _, id := range trashItems { // every trash item restores or says why
		if code, b := s.do(context.Background(), "POST", "/api/trash/"+id+"/restore"); code != 200 {
			res.ghosts++
			res.note("final restore %s: %d %s", id, code, b)
		}
	}
	s.stop()
	h.checkPlaces(agent, all, parents, del)
	res.leftovers, res.backups = del.leftovers, del.backups
	return []*tally{del, res}
}

// checkPlaces checks that each session is in exactly one place, forks
// name their live parent, and counts torn lines and debris.
func (h *harness) checkPlaces(agent string, all map[string]bool, parents map[string]string, tl *tally) {
	where := map[string][]string{}
	ino := map[uint64]int{}
	for _, p := range sessionFiles(agent) {
		id, _ := header(p)
		where[id] = append(where[id], p)
		if st, err := os.Stat(p); err == nil {
			ino[st.Sys().(*syscall.Stat_t).Ino]++
		}
		b, _ := os.ReadFile(p)
		tl.torn += badLines(b)
	}
	for id := range all {
		tl.files++
		switch n := len(where[id]); {
		case n == 0:
			tl.lost++
			tl.note("session %s is nowhere", id)
		case n > 1:
			tl.dup++
			tl.note("session %s is in %d places: %v", id, n, rel(agent, where[id]))
		default:
			tl.intact++
		}
	}
	for _, n := range ino {
		if n > 1 {
			tl.dup++
			tl.note("one inode at %d paths", n)
		}
	}
	for cid, pid := range parents {
		if len(where[cid]) != 1 || len(where[pid]) != 1 || inTrash(where[cid][0]) || inTrash(where[pid][0]) {
			continue
		}
		if _, ps := header(where[cid][0]); ps != where[pid][0] {
			tl.orphans++
			tl.note("fork %s names %q, its parent is live at %s", cid[:8], filepath.Base(ps), filepath.Base(where[pid][0]))
		}
	}
	tl.leftovers, tl.backups = debris(agent, tl)
}

// countOrphans counts live forks whose live parent is not their
// parentSession.
func countOrphans(agent string, parents map[string]string) int {
	tl := &tally{}
	where := map[string][]string{}
	for _, p := range sessionFiles(agent) {
		id, _ := header(p)
		where[id] = append(where[id], p)
	}
	for cid, pid := range parents {
		if len(where[cid]) == 1 && len(where[pid]) == 1 && !inTrash(where[cid][0]) && !inTrash(where[pid][0]) {
			if _, ps := header(where[cid][0]); ps != where[pid][0] {
				tl.orphans++
			}
		}
	}
	return tl.orphans
}

func inTrash(p string) bool {
	return strings.Contains(p, string(filepath.Separator)+"trash"+string(filepath.Separator))
}

func rel(root string, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i], _ = filepath.Rel(root, p)
	}
	return out
}

var _ = fmt.Sprint
