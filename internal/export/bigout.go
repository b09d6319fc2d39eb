package export

import (
	"bytes"
	"iter"
	"unicode/utf8"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// A tool's output longer than bigJSON is not decoded whole: an export of
// a 16 MB one held 2 (Markdown) to 2.4 (HTML) times the file (issue 21
// wants 1.5). A first pass over its pieces finds what the card needs of
// all of it (its length, its longest run of backticks for the fence, the
// newlines at its end, bash's exit line), keeping only its last tailKeep
// bytes; the writers decode it again, a piece at a time. The bytes written
// are those of the whole decoded output (TestBigTextSameBytes).

// bigOutput is a tool's output written a piece at a time: the JSON
// strings of its texts, joined by newlines as Content.Text joins them, or
// a text decoded already (a shell command's output).
type bigOutput struct {
	parts [][]byte
	text  string
	n     int // bytes of it written (bash's exit line left out)
	trail int // newlines at the end of those, which a fence leaves out
	run   int // its longest run of backticks
}

// tailKeep is the most of an output's end the first pass keeps, where
// bash's exit line and the newlines a fence trims are looked for. An end
// of white space and digits longer than that is decoded whole, as before.
const tailKeep = 64 << 10

// pieces yields the output a piece at a time (pieces end between
// characters; the slices are reused).
func (o *bigOutput) pieces() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for s := o.text; len(s) > 0; {
			n := min(len(s), piece)
			for n < len(s) && n > piece-utf8.UTFMax && !utf8.RuneStart(s[n]) {
				n--
			}
			if !yield([]byte(s[:n])) {
				return
			}
			s = s[n:]
		}
		for i, raw := range o.parts {
			if i > 0 && !yield([]byte{'\n'}) {
				return
			}
			for p := range jsjson.DecodedPieces(raw, piece) {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// writeTo gives fn the first n bytes of the output, a piece at a time.
func (o *bigOutput) writeTo(n int, fn func([]byte)) {
	for p := range o.pieces() {
		if n <= 0 {
			return
		}
		fn(p[:min(len(p), n)])
		n -= len(p)
	}
}

// bigOutputOf is c's text joined by newlines (Content.Text("\n")) when c
// is longer than bigJSON, to be written a piece at a time; nil otherwise.
func bigOutputOf(c pisession.Content) *bigOutput {
	if len(c.Raw) <= bigJSON {
		return nil
	}
	if c.IsString() {
		return &bigOutput{parts: [][]byte{c.Raw}}
	}
	o := &bigOutput{}
	for el := range jsjson.Elements(c.Raw) {
		if typ, _ := jsjson.DecodeString(jsjson.Field(el, "type")); typ != "text" {
			continue
		}
		if raw := jsjson.Field(el, "text"); hasText(raw) {
			o.parts = append(o.parts, raw)
		}
	}
	return o
}

// hasText reports whether JSON raw is a string of at least one character.
func hasText(raw []byte) bool {
	for range jsjson.DecodedPieces(raw, piece) {
		return true
	}
	return false
}

// scan is the first pass: it sets n, trail and run, cuts bash's exit line
// (returned, "" when there is none), and returns false when the output's
// end is longer than the tail it keeps (the caller decodes it whole).
func (o *bigOutput) scan(bash bool) (exit string, ok bool) {
	var tail []byte
	total, run := 0, 0
	for p := range o.pieces() {
		total += len(p)
		for _, c := range p {
			if c != '`' {
				run = 0
				continue
			}
			run++
			o.run = max(o.run, run)
		}
		if tail = append(tail, p...); len(tail) > 2*tailKeep {
			tail = append(tail[:0], tail[len(tail)-tailKeep:]...)
		}
	}
	whole := total == len(tail)
	keep := tail
	if bash {
		if m := exitRE.FindSubmatchIndex(tail); m != nil {
			exit, keep = string(tail[m[2]:m[3]]), bytes.TrimRight(tail[:m[0]], " \n")
		} else if !whole && len(bytes.TrimLeft(tail, "-0123456789 \t\n\f\r")) == 0 {
			return "", false // an exit line may begin before the tail
		}
	}
	o.n = total - len(tail) + len(keep)
	o.trail = len(keep) - len(bytes.TrimRight(keep, "\n"))
	if !whole && (len(keep) == 0 || o.trail == len(keep)) {
		return "", false // white space before the tail may be trimmed too
	}
	return exit, true
}
