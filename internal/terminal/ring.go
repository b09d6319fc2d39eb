package terminal

import "bytes"

// ring keeps the last max bytes of a terminal's output (at most; it drops
// whole lines where it can, so a replay starts at a line's beginning
// rather than inside an escape sequence).
type ring struct {
	max int
	buf []byte
}

func (r *ring) write(p []byte) {
	if len(p) >= r.max {
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		r.trimToLine(0)
		return
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.trimToLine(over)
	}
	r.buf = append(r.buf, p...)
}

// trimToLine drops at least n bytes from the front, up to the end of the
// line they end in when that line ends within a quarter of max.
func (r *ring) trimToLine(n int) {
	cut := n
	if i := bytes.IndexByte(r.buf[n:], '\n'); i >= 0 && i < r.max/4 {
		cut = n + i + 1
	}
	if cut > len(r.buf) {
		cut = len(r.buf)
	}
	r.buf = append(r.buf[:0], r.buf[cut:]...)
}

// bytes returns a copy of the kept output.
func (r *ring) bytes() []byte { return append([]byte(nil), r.buf...) }
