package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"piweb/internal/ctxwait"
	"piweb/internal/errs"
)

// ErrStale is a prompt refused because another process (a terminal pi)
// appended to the session file since this worker's pi loaded it: pi keeps
// its own leaf in memory and would silently branch the file behind the
// user's back. Reload (adopt the file), Clone (continue pi's branch in a new
// file), or pass PromptOptions.Force.
var ErrStale = errs.New(errs.Stale, "the session file changed outside piweb; reload or fork", "session file changed outside piweb")

// fileTracker notices foreign appends to a worker's session file, with two
// rules. While the worker is idle (no run, no command in flight) pi writes
// nothing, so any new line is foreign. While it works, pi appends only to
// the file it has open and (apart from tree navigation, which goes through
// piweb's bridge and is trusted) every entry is a child of the previous
// one, so a line whose parentId is not the id of the last line piweb
// accounted for, or a second header, is foreign. The second rule alone
// misses a terminal pi that opened the file after piweb's last write (its
// entries chain from ours), hence the first.
//
// pi >= 0.86 also writes while idle (cache-warm usage entries, a trailing
// newline on open) and announces its appends outside messages with
// entry_appended: an entry whose id pi announced is pi's own in any mode.
// pi writes the line before it sends the event, so an unannounced line
// found while idle is judged only after grace, giving its event time to
// arrive.
type fileTracker struct {
	path  string
	grace time.Duration

	mu      sync.Mutex
	size    int64  // bytes accounted for
	leaf    string // id of our chain's head
	base    string // id of the file's leaf when pi loaded it ("" for none)
	outside bool   // a foreign write is unacknowledged
	noticed bool   // subscribers were told about it
	own     map[string]bool
	suspect time.Time // when unannounced idle lines were first seen
}

// DefaultOwnGrace is how long an unannounced line found while pi is idle
// waits for pi's entry_appended before it counts as another process's.
const DefaultOwnGrace = 500 * time.Millisecond

func newFileTracker(path string, grace time.Duration) *fileTracker {
	if path == "" {
		return nil
	}
	t := &fileTracker{path: path, grace: grace, own: map[string]bool{}}
	f, err := os.Open(path)
	if err != nil {
		return t // pi writes it on the first answer
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		t.size = st.Size()
		t.leaf = fieldString(lastLine(f, t.size), "id")
		t.base = t.leaf
	}
	return t
}

// lastLine returns the last complete line of f, reading backwards in
// chunks (lines can be megabytes long).
func lastLine(f io.ReaderAt, size int64) []byte {
	const chunk = 64 << 10
	var buf []byte
	for off := size; off > 0 && len(buf) < 64<<20; {
		n := min(int64(chunk), off)
		off -= n
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return nil
		}
		buf = append(b, buf...)
		body := bytes.TrimRight(buf, "\n")
		if i := bytes.LastIndexByte(body, '\n'); i >= 0 || off == 0 {
			return body[i+1:]
		}
	}
	return nil
}

// scanMode says what piweb knows about who may have written.
type scanMode int

const (
	scanIdle  scanMode = iota // pi was idle: every new line is foreign
	scanChain                 // pi was working: lines must chain
	scanTrust                 // a bridge operation branched: accept
)

// scan reads the complete lines appended since the last scan and reports
// whether a foreign write was newly found.
func (t *fileTracker) scan(mode scanMode) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := os.Open(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check session file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("check session file: %w", err)
	}
	was := t.outside
	if st.Size() < t.size {
		t.outside, t.size = true, st.Size() // rewritten or truncated
		return !was, nil
	}
	if st.Size() == t.size {
		return false, nil
	}
	b := make([]byte, st.Size()-t.size)
	if _, err := f.ReadAt(b, t.size); err != nil && err != io.EOF {
		return false, fmt.Errorf("read session file: %w", err)
	}
	return t.judge(b, mode, was), nil
}

// feed takes the complete lines another reader (the index) read from the
// file at offset from, so the file is not read twice. It reports whether
// a foreign write was newly found, and false for ok when the lines do not
// continue what was accounted for (the caller scans the file instead).
func (t *fileTracker) feed(from int64, lines []byte, mode scanMode) (found, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	end := from + int64(len(lines))
	if from > t.size || end < t.size {
		return false, false
	}
	return t.judge(lines[t.size-from:], mode, t.outside), true
}

// judge checks b, the bytes after the ones accounted for, and reports
// whether a foreign write was newly found (was: one was known before).
// t.mu is held.
func (t *fileTracker) judge(b []byte, mode scanMode, was bool) bool {
	if len(b) == 0 {
		return false
	}
	if mode == scanIdle && t.unannounced(b) {
		if t.suspect.IsZero() {
			t.suspect = time.Now()
		}
		if time.Since(t.suspect) < t.grace {
			return false // judged at a later scan
		}
	}
	t.suspect = time.Time{}
	t.absorb(b, mode)
	return t.outside && !was
}

// unannounced reports whether b holds a complete entry line pi did not
// announce. t.mu is held.
func (t *fileTracker) unannounced(b []byte) bool {
	for line := range bytes.Lines(b) {
		if line[len(line)-1] != '\n' {
			return false
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 && !t.own[fieldString(line, "id")] {
			return true
		}
	}
	return false
}

// pending reports how long to wait before unannounced lines are judged.
func (t *fileTracker) pending() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.suspect.IsZero() {
		return 0
	}
	return max(t.grace-time.Since(t.suspect), time.Millisecond)
}

// announce records an entry pi said it appended (entry_appended).
func (t *fileTracker) announce(id string) {
	t.mu.Lock()
	t.own[id] = true
	t.mu.Unlock()
}

// absorb checks each complete line of b. t.mu is held.
func (t *fileTracker) absorb(b []byte, mode scanMode) {
	trust := mode == scanTrust
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return
		}
		line := b[:i+1]
		b = b[i+1:]
		first := t.size == 0
		t.size += int64(len(line))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		typ, id, parent := fieldString(line, "type"), fieldString(line, "id"), fieldString(line, "parentId")
		switch {
		case id != "" && t.own[id]:
			delete(t.own, id)
			t.leaf = id
		case mode == scanIdle:
			t.outside = true
		case typ == "session":
			if !first && !trust {
				t.outside = true
			}
		case trust || parent == t.leaf:
			t.leaf = id
		default:
			t.outside = true // our chain head stays ours
		}
	}
}

// setLeaf records where pi's leaf is after a bridge navigation.
func (t *fileTracker) setLeaf(leaf string) {
	t.mu.Lock()
	t.leaf = leaf
	t.mu.Unlock()
}

func (t *fileTracker) stale() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.outside
}

// notice reports (once per foreign change) that subscribers must be told.
func (t *fileTracker) notice() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.outside || t.noticed {
		return false
	}
	t.noticed = true
	return true
}

// ack accepts the foreign change (the caller forces a prompt).
func (t *fileTracker) ack() {
	t.mu.Lock()
	t.outside, t.noticed = false, false
	t.mu.Unlock()
}

// OutsideNotice is the body of a piweb_outside_change event.
type OutsideNotice struct {
	File string `json:"file"`
}

func (w *Worker) fileTracker() *fileTracker {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tracker
}

// CheckOutside scans the session file for foreign appends and tells
// subscribers when it finds one. The supervisor calls it periodically; it
// also runs before every prompt.
func (w *Worker) CheckOutside() error {
	t := w.fileTracker()
	if t == nil || w.trusting() {
		return nil // a bridge operation's writes are taken in when it ends
	}
	mode := scanChain
	if w.quiet() {
		mode = scanIdle
	}
	return w.scanFile(t, mode)
}

// FileGrew takes lines appended to the session file as another reader
// (the index, through the server) read them: the complete lines from file
// offset from. It judges them as CheckOutside would, without reading the
// file, which it reads only when the lines do not continue what the
// tracker accounted for. Unannounced lines pi may still announce are
// judged again after the grace.
func (w *Worker) FileGrew(from int64, lines []byte) {
	t := w.fileTracker()
	if t == nil || w.trusting() {
		return
	}
	mode := scanChain
	if w.quiet() {
		mode = scanIdle
	}
	if _, ok := t.feed(from, lines, mode); !ok {
		_ = w.CheckOutside()
	} else if t.notice() {
		w.Hub().Publish(NewEvent(EvOutsideChange, OutsideNotice{File: t.path}))
	}
	if d := t.pending(); d > 0 {
		time.AfterFunc(d, func() { _ = w.CheckOutside() })
	}
}

// scanFile scans and tells subscribers about a new foreign change.
func (w *Worker) scanFile(t *fileTracker, mode scanMode) error {
	if _, err := t.scan(mode); err != nil {
		return err
	}
	if t.notice() {
		w.Hub().Publish(NewEvent(EvOutsideChange, OutsideNotice{File: t.path}))
	}
	return nil
}

// Stale reports whether the session file changed outside since pi loaded
// it (and the change was not acknowledged with a forced prompt).
func (w *Worker) Stale() bool {
	t := w.fileTracker()
	return t != nil && t.stale()
}

// checkStale refuses a prompt with ErrStale when the file changed outside
// piweb, unless o forces it or says the user saw the file as it is now
// (then pi reloads the file first).
func (w *Worker) checkStale(ctx context.Context, o PromptOptions) error {
	t, err := w.judgeNow(ctx)
	if t == nil || err != nil {
		return err
	}
	switch {
	case !t.stale():
		return nil
	case o.Force:
		t.ack()
		return nil
	case o.ExpectLeaf != "" && fileLeaf(t.path) == o.ExpectLeaf:
		if err := w.Reload(ctx); err != nil {
			return fmt.Errorf("reload the session file: %w", err)
		}
		return nil
	}
	return ErrStale
}

// judgeNow judges every complete line in the file now, waiting out the
// grace of unannounced ones, and returns the tracker (nil when pi has no
// file).
func (w *Worker) judgeNow(ctx context.Context) (*fileTracker, error) {
	if err := w.CheckOutside(); err != nil {
		return nil, err
	}
	t := w.fileTracker()
	if t == nil {
		return nil, nil
	}
	if d := t.pending(); d > 0 {
		if err := ctxwait.Sleep(ctx, d); err != nil {
			return nil, err
		}
		if err := w.CheckOutside(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// OwnSince reports the id of the file's leaf when this worker's pi loaded
// it ("" when pi created the file) and whether every line appended since
// is pi's own, after judging the lines not judged yet. A client that shows
// an entry appended after base, when ok, has seen all that matters: what
// it lacks is pi's own writing on its way to it.
func (w *Worker) OwnSince(ctx context.Context) (base string, ok bool, err error) {
	t, err := w.judgeNow(ctx)
	if t == nil || err != nil {
		return "", false, err
	}
	return t.base, !t.stale(), nil
}

// fileLeaf is the id of the file's last complete line: the leaf pi takes
// when it opens the file.
func fileLeaf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	return fieldString(lastLine(f, st.Size()), "id")
}

// noteOwnWrite absorbs what a bridge operation wrote and moves the chain
// head to pi's new leaf.
func (w *Worker) noteOwnWrite(leaf string) {
	t := w.fileTracker()
	if t == nil {
		return
	}
	_, _ = t.scan(scanTrust)
	t.setLeaf(leaf)
}

// quiet reports whether pi can be writing nothing: idle, or settling
// after a run or a compaction whose entries absorbOwn already took in (pi
// writes them before it announces the end), and no command in flight. A
// retry or automatic compaction decided in the settling window announces
// itself before pi writes again.
func (w *Worker) quiet() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.m.Status(time.Now()).Phase
	return (p == PhaseIdle || p == PhaseSettling) && w.inflight == 0
}

// absorbOwn accounts for what pi wrote during work that just ended, while
// the worker still counts as working (so lines must chain).
func (w *Worker) absorbOwn() {
	if t := w.fileTracker(); t != nil && !w.trusting() {
		_ = w.scanFile(t, scanChain)
	}
}
