package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"piweb/internal/errs"
	"piweb/internal/opt"
)

// Client is one running `pi --mode rpc` process. Commands may be sent from
// any goroutine; each carries an id and waits for the response with that
// id, since pi handles commands concurrently and answers out of order.
type Client struct {
	opts   Options
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *tail
	pid    int

	wmu    sync.Mutex // serializes whole lines on stdin
	nextID atomic.Uint64

	mu      sync.Mutex
	pending map[string]*call
	order   []string // pending ids in send order, for id-less errors

	exited  chan struct{}
	exitErr *ExitError
}

type call struct {
	command string
	done    chan struct{}
	resp    Response
	err     error
}

// Response is pi's answer to one command.
type Response struct {
	ID      string          `json:"id,omitempty"`
	Command string          `json:"command"`
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data,omitempty"`
	Error   string          `json:"error,omitempty"`
}

// CommandError is a response with success:false.
type CommandError struct {
	Command string
	Message string
}

func (e *CommandError) Error() string { return fmt.Sprintf("pi %s: %s", e.Command, e.Message) }

// Is makes pi's refusal of a prompt while it works match ErrBusy, so that
// callers test errors.Is(err, ErrBusy) and never pi's wording.
func (e *CommandError) Is(target error) bool {
	return target == ErrBusy && strings.HasPrefix(e.Message, "Agent is already processing")
}

// ErrorKind is errs.Busy when pi refused a prompt because it works, else
// errs.Invalid: pi refused what the client asked (errs.Classified).
func (e *CommandError) ErrorKind() errs.Kind {
	if errors.Is(e, ErrBusy) {
		return errs.Busy
	}
	return errs.Invalid
}

// ClientMessage is pi's reason, first line only.
func (e *CommandError) ClientMessage() string {
	if errors.Is(e, ErrBusy) {
		return ErrBusy.Msg
	}
	return "pi refused " + e.Command + ": " + e.Reason()
}

// Reason is pi's message without what follows its first line (a
// JavaScript stack would tell a client where pi is installed).
func (e *CommandError) Reason() string {
	msg, _, _ := strings.Cut(e.Message, "\n")
	return msg
}

// Start runs pi and waits until it answers get_state, so that startup
// failures (bad flags, a session whose cwd is gone) are returned here as an
// *ExitError or *CwdGoneError rather than surfacing on the first command.
func Start(ctx context.Context, opts Options) (*Client, State, error) {
	c, err := Spawn(ctx, opts)
	if err != nil {
		return nil, State{}, err
	}
	st, err := c.GetState(ctx)
	if err != nil {
		var ee *ExitError
		if errors.As(err, &ee) {
			err = classifyExit(ee, opts.SessionFile)
		}
		c.Kill()
		return nil, State{}, err
	}
	return c, st, nil
}

// Spawn runs pi without waiting for it to be ready; commands sent meanwhile
// are read by pi once it has loaded (~1.5 s).
func Spawn(ctx context.Context, opts Options) (*Client, error) {
	if opts.Pi == nil {
		pi, err := Find(ctx, "")
		if err != nil {
			return nil, err
		}
		opts.Pi = pi
	}
	cmd, err := opts.command(opts.Pi)
	if err != nil {
		return nil, err
	}
	c := &Client{opts: opts, cmd: cmd, stderr: newTail(8 << 10), pending: map[string]*call{}, exited: make(chan struct{})}
	cmd.Stderr = c.stderr
	cmd.WaitDelay = 2 * time.Second // tool processes may keep stderr open
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("pi stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("pi stdout: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, &MissingError{Path: opts.Pi.Path, Err: err}
	}
	c.pid = cmd.Process.Pid
	go c.readLoop(stdout)
	return c, nil
}

// Version is the version of the pi this client runs (zero when unknown).
func (c *Client) Version() Version {
	if c.opts.Pi == nil {
		return Version{}
	}
	return c.opts.Pi.Version
}

// Has reports whether this pi is release v or newer.
func (c *Client) Has(v Version) bool { return c.Version().AtLeast(v) }

// Pid is pi's process id, which is also its process group id.
func (c *Client) Pid() int { return c.pid }

// Done is closed when pi has exited and every pending call has failed.
func (c *Client) Done() <-chan struct{} { return c.exited }

// Exit is how pi ended; nil while it runs.
func (c *Client) Exit() *ExitError {
	select {
	case <-c.exited:
		return c.exitErr
	default:
		return nil
	}
}

// StderrTail is the last few KB pi wrote on stderr.
func (c *Client) StderrTail() string { return c.stderr.String() }

// Close stops pi: SIGTERM to its process group, then SIGKILL after grace
// (DefaultKillGrace when zero) or when ctx ends.
func (c *Client) Close(ctx context.Context, grace time.Duration) {
	opt.Positive(&grace, DefaultKillGrace)
	select {
	case <-c.exited:
		return
	default:
	}
	stop(ctx, c.pid, c.exited, grace)
}

// Kill stops pi's group at once with SIGKILL and waits for the reader.
func (c *Client) Kill() {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = signalGroup(c.pid, syscall.SIGKILL)
	<-c.exited
}

// readLoop reads stdout lines of any size, split on LF only (JSON strings
// may hold U+2028), and dispatches them.
func (c *Client) readLoop(stdout io.Reader) {
	c.readLines(stdout)
	werr := c.cmd.Wait()
	c.finish(exitInfo(c.cmd.ProcessState, werr, c.stderr.String()))
}

func (c *Client) readLines(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			return
		}
	}
}

// readLine returns one line without its LF in a fresh slice that the
// caller may keep.
func readLine(r *bufio.Reader) ([]byte, error) {
	frag, err := r.ReadSlice('\n')
	if err == nil {
		return append([]byte(nil), frag[:len(frag)-1]...), nil
	}
	if err != bufio.ErrBufferFull {
		return append([]byte(nil), frag...), err
	}
	buf := append(make([]byte, 0, 2*len(frag)), frag...)
	for {
		frag, err = r.ReadSlice('\n')
		buf = append(buf, frag...)
		if err == nil {
			return buf[:len(buf)-1], nil
		}
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

func (c *Client) dispatch(line []byte) {
	typ := fieldString(line, "type")
	if typ != EvResponse {
		if c.opts.OnEvent != nil {
			c.opts.OnEvent(Event{Type: typ, Raw: line})
		}
		return
	}
	var resp Response
	if err := json.Unmarshal(line, &resp); err == nil {
		if cl := c.take(resp); cl != nil {
			cl.resp = resp
			close(cl.done)
			return
		}
	}
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(Event{Type: typ, Raw: line}) // unmatched or malformed
	}
}

// take removes the call a response answers. A response without id (pi's
// "Unknown command" and parse errors) answers the oldest pending call of
// the same command, since piweb always sends ids.
func (c *Client) take(resp Response) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := resp.ID
	if id == "" {
		for _, pid := range c.order {
			if c.pending[pid].command == resp.Command {
				id = pid
				break
			}
		}
	}
	cl := c.pending[id]
	if cl == nil {
		return nil
	}
	delete(c.pending, id)
	for i, pid := range c.order {
		if pid == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
	return cl
}

func (c *Client) finish(e *ExitError) {
	c.mu.Lock()
	c.exitErr = e
	calls := c.pending
	c.pending = map[string]*call{}
	c.order = nil
	c.mu.Unlock()
	for _, cl := range calls {
		cl.err = e
		close(cl.done)
	}
	close(c.exited)
}

// Call sends command typ with the fields of args (a struct or nil) and waits
// for its response. A success:false response is a *CommandError; pi exiting
// meanwhile is an *ExitError.
func (c *Client) Call(ctx context.Context, typ string, args any) (Response, error) {
	id := strconv.FormatUint(c.nextID.Add(1), 10)
	line, err := commandLine(id, typ, args)
	if err != nil {
		return Response{}, err
	}
	cl := &call{command: typ, done: make(chan struct{})}
	if err := c.register(id, cl); err != nil {
		return Response{}, err
	}
	if err := c.write(line); err != nil {
		c.forget(id)
		return Response{}, err
	}
	select {
	case <-cl.done:
	case <-ctx.Done():
		c.forget(id)
		return Response{}, fmt.Errorf("pi %s: %w", typ, ctx.Err())
	}
	if cl.err != nil {
		return Response{}, cl.err
	}
	if !cl.resp.Success {
		return cl.resp, &CommandError{Command: typ, Message: cl.resp.Error}
	}
	return cl.resp, nil
}

func (c *Client) register(id string, cl *call) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exitErr != nil {
		return c.exitErr
	}
	c.pending[id] = cl
	c.order = append(c.order, id)
	return nil
}

func (c *Client) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
	for i, pid := range c.order {
		if pid == id {
			c.order = append(c.order[:i], c.order[i+1:]...)
			break
		}
	}
}

// Send writes a line that pi does not answer (extension_ui_response).
func (c *Client) Send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	return c.write(append(b, '\n'))
}

func (c *Client) write(line []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.stdin.Write(line); err != nil {
		if e := c.Exit(); e != nil {
			return e
		}
		return fmt.Errorf("write to pi: %w", err)
	}
	return nil
}

// commandLine encodes {"id":id,"type":typ,...args} followed by LF.
func commandLine(id, typ string, args any) ([]byte, error) {
	line := []byte(`{"id":"` + id + `","type":`)
	line, _ = appendJSONString(line, typ)
	if args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", typ, err)
		}
		if len(b) < 2 || b[0] != '{' {
			return nil, fmt.Errorf("encode %s: arguments are not an object", typ)
		}
		if len(b) > 2 {
			line = append(line, ',')
			line = append(line, b[1:len(b)-1]...)
		}
	}
	return append(line, '}', '\n'), nil
}

// tail keeps the last max bytes written to it (a pi's stderr, a package
// command's output).
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
