package pitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// callTimeout bounds one oracle answer. The oracle refuses the questions on
// which pi itself would never return, so hitting this is a bug.
const callTimeout = 2 * time.Minute

// Oracle is V16.Oracle: pi 1.6.0 answers.
func Oracle(t testing.TB, args ...string) []byte {
	t.Helper()
	return V16.Oracle(t, args...)
}

// OracleJSON is V16.OracleJSON.
func OracleJSON(t testing.TB, v any, args ...string) {
	t.Helper()
	V16.OracleJSON(t, v, args...)
}

// Oracle runs `node tools/pi/oracle.mjs args...` once on v's SessionManager
// and returns its JSON answer, failing the test (with the script's stderr)
// if it fails. Each run costs a node start (~0.2 s); tests asking many
// questions should use StartOracle. Relative paths are relative to the
// test's working directory.
func (v Version) Oracle(t testing.TB, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cmd := v.oracleCmd(t, ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pitest: oracle %q: %s", args, exitDetail(err, stderr.Bytes()))
	}
	return out
}

// OracleJSON is Oracle decoding the answer into out.
func (v Version) OracleJSON(t testing.TB, out any, args ...string) {
	t.Helper()
	decode(t, v.Oracle(t, args...), out, args)
}

func decode(t testing.TB, data []byte, v any, args []string) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("pitest: decoding oracle %q answer: %v", args, err)
	}
}

// Error is an answer the oracle gave instead of a result: pi threw (e.g.
// on a line holding null) or would never have returned (Code "cycle").
type Error struct {
	Args    []string
	Message string `json:"error"`
	Code    string `json:"code"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("oracle %q: %s (code %q)", e.Args, e.Message, e.Code)
}

// Batch is one long-lived `oracle.mjs batch` process. Questions go one per
// line and are answered in order, so a test pays for node's start once.
// It is safe for concurrent use; calls are serialised.
type Batch struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *bytes.Buffer
	dead   error
}

// StartOracle is V16.StartOracle.
func StartOracle(t testing.TB) *Batch {
	t.Helper()
	return V16.StartOracle(t)
}

// StartOracle starts a Batch answering with v's SessionManager; it is
// stopped when the test ends.
func (v Version) StartOracle(t testing.TB) *Batch {
	t.Helper()
	cmd := v.oracleCmd(t, context.Background(), "batch")
	b := &Batch{cmd: cmd, lines: make(chan []byte), stderr: new(bytes.Buffer)}
	cmd.Stderr = b.stderr
	var err error
	if b.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatalf("pitest: %v", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("pitest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("pitest: starting oracle: %v", err)
	}
	go b.read(stdout)
	t.Cleanup(b.Close)
	return b
}

// read forwards each answer line; the channel closes when node exits.
func (b *Batch) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && err == nil {
			b.lines <- line
		}
		if err != nil {
			close(b.lines)
			return
		}
	}
}

// Close ends the node process.
func (b *Batch) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead == nil {
		b.dead = errors.New("oracle closed")
	}
	b.stdin.Close()
	done := make(chan struct{})
	go func() {
		b.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

// Try asks one question and returns the raw JSON answer, or an *Error when
// the oracle answered with an error, or another error if the process broke.
func (b *Batch) Try(args ...string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dead != nil {
		return nil, b.dead
	}
	req, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	if _, err := b.stdin.Write(append(req, '\n')); err != nil {
		return nil, b.fail(fmt.Errorf("writing to oracle: %w", err))
	}
	select {
	case line, ok := <-b.lines:
		if !ok {
			return nil, b.fail(errors.New("oracle exited"))
		}
		return parseReply(line, args)
	case <-time.After(callTimeout):
		b.cmd.Process.Kill()
		return nil, b.fail(fmt.Errorf("oracle %q: no answer after %v", args, callTimeout))
	}
}

// fail marks the process unusable and adds what node printed on stderr.
func (b *Batch) fail(err error) error {
	b.dead = fmt.Errorf("%w; stderr: %s", err, bytes.TrimSpace(b.stderr.Bytes()))
	return b.dead
}

// parseReply splits {"ok":ANSWER} by hand: ANSWER may nest deeper than
// encoding/json's limit (getTree of a long linear session), and callers
// decide how to read it.
func parseReply(line []byte, args []string) ([]byte, error) {
	line = bytes.TrimRight(line, "\r\n")
	if ok, found := bytes.CutPrefix(line, []byte(`{"ok":`)); found && bytes.HasSuffix(ok, []byte("}")) {
		return ok[:len(ok)-1], nil
	}
	e := &Error{Args: args}
	if err := json.Unmarshal(line, e); err != nil || e.Message == "" {
		return nil, fmt.Errorf("oracle %q: unreadable answer %.200q", args, line)
	}
	return nil, e
}

// Call is Try that fails the test on any error.
func (b *Batch) Call(t testing.TB, args ...string) []byte {
	t.Helper()
	out, err := b.Try(args...)
	if err != nil {
		t.Fatalf("pitest: %v", err)
	}
	return out
}

// CallJSON is Call decoding the answer into v.
func (b *Batch) CallJSON(t testing.TB, v any, args ...string) {
	t.Helper()
	decode(t, b.Call(t, args...), v, args)
}
