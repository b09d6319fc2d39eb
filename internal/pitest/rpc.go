package pitest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// RPC is one real `pi --mode rpc` a test drives through its stdin and
// stdout: each JSON line pi prints arrives on Lines (closed when pi
// exits), and its stderr is kept for the failure messages.
type RPC struct {
	t      testing.TB
	stdin  io.WriteCloser
	Lines  chan map[string]any
	stderr testkit.Output
	n      int
}

// StartRPC starts cmd, a pi with --mode rpc among its arguments (its Dir
// and Env the caller's); when the test ends its stdin is closed and it is
// killed if it has not exited within 5 s.
func StartRPC(t testing.TB, cmd *exec.Cmd) *RPC {
	t.Helper()
	p := &RPC{t: t, Lines: make(chan map[string]any, 4096)}
	cmd.Stderr = &p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.stdin = stdin
	go p.read(stdout)
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return p
}

// read sends each JSON line of pi's stdout to Lines.
func (p *RPC) read(r io.Reader) {
	defer close(p.Lines)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		var ev map[string]any
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &ev) == nil {
			p.Lines <- ev
		}
		if err != nil {
			return
		}
	}
}

// Stderr is what pi wrote to stderr so far.
func (p *RPC) Stderr() string { return p.stderr.String() }

// Send writes cmd with a fresh id ("c1", "c2"...) and returns the id.
func (p *RPC) Send(cmd map[string]any) string {
	p.t.Helper()
	p.n++
	id := fmt.Sprint("c", p.n)
	cmd["id"] = id
	b, _ := json.Marshal(cmd)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatalf("write to pi: %v; stderr: %s", err, p.Stderr())
	}
	return id
}

// Until collects pi's lines up to and including the first that satisfies
// stop; pi's exit or the timeout stops the test, with the types of what
// came (typeOf names a line for that message).
func (p *RPC) Until(timeout time.Duration, stop func(map[string]any) bool) []map[string]any {
	p.t.Helper()
	var got []map[string]any
	deadline := time.After(timeout)
	for {
		select {
		case ev, open := <-p.Lines:
			if !open {
				p.t.Fatalf("pi exited; stderr:\n%s\nlines: %v", p.Stderr(), typesOf(got))
			}
			got = append(got, ev)
			if stop(ev) {
				return got
			}
		case <-deadline:
			p.t.Fatalf("timeout after %v; lines: %v\nstderr:\n%s", timeout, typesOf(got), p.Stderr())
		}
	}
}

// Call sends cmd and returns pi's response to it, which must be a
// success, within timeout.
func (p *RPC) Call(cmd map[string]any, timeout time.Duration) map[string]any {
	p.t.Helper()
	id := p.Send(cmd)
	got := p.Until(timeout, func(ev map[string]any) bool { return ev["type"] == "response" && ev["id"] == id })
	resp := got[len(got)-1]
	if resp["success"] != true {
		p.t.Fatalf("%v failed: %v", cmd["type"], resp["error"])
	}
	return resp
}

// typesOf lists the lines' types, a message_update's with its event's.
func typesOf(lines []map[string]any) []string {
	var out []string
	for _, ev := range lines {
		t := fmt.Sprint(ev["type"])
		if u, _ := ev["assistantMessageEvent"].(map[string]any); t == "message_update" && u != nil {
			t += ":" + fmt.Sprint(u["type"])
		}
		out = append(out, t)
	}
	return out
}
