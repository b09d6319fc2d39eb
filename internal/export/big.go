package export

import (
	"bufio"
	"bytes"
	"html/template"
	"io"
	"strconv"
	"unicode"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// A text whose JSON is longer than bigJSON (a pasted log, a dumped file)
// is written as it is decoded, a piece at a time, instead of decoded whole
// and then escaped or trimmed into more copies: an export of a 52 MB
// message held 5 to 8 times it (issue 21). The output is the same bytes.
var bigJSON = maxMarkdown // a variable for tests

// piece is the size of the pieces a big text is decoded in.
const piece = 64 << 10

// textBlocks is a message content's blocks, string content as one text
// block, with the JSON of big texts left undecoded (Block.TextJSON).
func textBlocks(c pisession.Content) []pisession.Block {
	if !c.IsString() {
		return c.BlocksUpTo(bigJSON)
	}
	if len(c.Raw) > bigJSON {
		return []pisession.Block{{Type: "text", TextJSON: c.Raw}}
	}
	return []pisession.Block{{Type: "text", Text: c.String()}}
}

// writeTrimmed writes the text of JSON string raw without its leading and
// trailing white space, as strings.TrimSpace: pieces end between
// characters, and white space is held back until more text follows it.
func writeTrimmed(w *bufio.Writer, raw []byte) {
	started := false
	var held []byte
	for p := range jsjson.DecodedPieces(raw, piece) {
		if !started {
			if p = bytes.TrimLeftFunc(p, unicode.IsSpace); len(p) == 0 {
				continue
			}
			started = true
		}
		t := bytes.TrimRightFunc(p, unicode.IsSpace)
		if len(t) > 0 {
			w.Write(held)
			w.Write(t)
			held = held[:0]
		}
		held = append(held, p[len(t):]...)
	}
}

// decodedLen is the length of the text of JSON string raw.
func decodedLen(raw []byte) int {
	n := 0
	for p := range jsjson.DecodedPieces(raw, piece) {
		n += len(p)
	}
	return n
}

// bigs are the big texts of an HTML page, written where the page has
// their marks: a NUL, the text's number, a NUL. No other NUL is in a page
// (html/template and goldmark replace a text's NULs).
type bigs struct {
	texts   [][]byte
	outputs []*bigOutput
}

// mark registers the text of JSON string raw and returns the page's
// HTML for it, as markdown gives for a text that long.
func (b *bigs) mark(raw []byte) template.HTML {
	b.texts = append(b.texts, raw)
	return template.HTML("<pre>\x00" + strconv.Itoa(len(b.texts)-1) + "\x00</pre>")
}

// markOutput registers a tool's output and returns the mark the page has
// in its place (escaped as html/template escapes text).
func (b *bigs) markOutput(o *bigOutput) template.HTML {
	b.outputs = append(b.outputs, o)
	return template.HTML("\x00o" + strconv.Itoa(len(b.outputs)-1) + "\x00")
}

// output is t, whose output, when big, is marked for the writer to
// escape a piece at a time instead of html/template into one more copy.
func (b *bigs) output(t *tool) *tool {
	switch {
	case t.big != nil:
		t.OutputHTML = b.markOutput(t.big)
	case len(t.Output) > bigJSON:
		t.OutputHTML = b.markOutput(&bigOutput{text: t.Output, n: len(t.Output)})
	}
	return t
}

// writer is w writing each mark's text, HTML-escaped, in its place.
func (b *bigs) writer(w io.Writer) *bigWriter {
	return &bigWriter{w: w, texts: b.texts, outputs: b.outputs}
}

type bigWriter struct {
	w       io.Writer
	texts   [][]byte
	outputs []*bigOutput
	mark    []byte // the number of a mark begun
	in      bool   // within a mark
	err     error
}

func (b *bigWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && b.err == nil {
		i := bytes.IndexByte(p, 0)
		switch {
		case b.in && i < 0:
			b.mark = append(b.mark, p...)
			return n, nil
		case b.in:
			b.mark = append(b.mark, p[:i]...)
			b.in, p = false, p[i+1:]
			b.writeText()
		case i < 0:
			_, b.err = b.w.Write(p)
			return n, b.err
		default:
			_, b.err = b.w.Write(p[:i])
			b.in, b.mark, p = true, b.mark[:0], p[i+1:]
		}
	}
	return n, b.err
}

// writeText writes the text of the mark just read, escaped as
// template.HTMLEscapeString escapes it (byte by byte, so in pieces too).
func (b *bigWriter) writeText() {
	if o, ok := bytes.CutPrefix(b.mark, []byte("o")); ok {
		b.writeOutput(o)
		return
	}
	k, err := strconv.Atoi(string(b.mark))
	if err != nil || k < 0 || k >= len(b.texts) {
		return
	}
	ew := &errWriter{w: b.w}
	for p := range jsjson.DecodedPieces(b.texts[k], piece) {
		if template.HTMLEscape(ew, p); ew.err != nil {
			break
		}
	}
	b.err = ew.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err == nil {
		_, e.err = e.w.Write(p)
	}
	return len(p), e.err
}

// textEscapes are html/template's replacements for a string in an
// element's text (its htmlEscaper): the bytes a tool's big output is
// escaped with, a piece at a time and without a string of each piece (at
// 52 MB, the pieces' garbage let the heap reach 2x the file).
var textEscapes = [256]string{0: "\uFFFD", '"': "&#34;", '&': "&amp;", '\'': "&#39;", '+': "&#43;", '<': "&lt;", '>': "&gt;"}

// writeOutput writes the output of the mark just read, escaped as
// html/template escapes text: pieces end between characters, and each
// byte it replaces is ASCII.
func (b *bigWriter) writeOutput(mark []byte) {
	k, err := strconv.Atoi(string(mark))
	if err != nil || k < 0 || k >= len(b.outputs) {
		return
	}
	o := b.outputs[k]
	var buf []byte
	o.writeTo(o.n, func(p []byte) {
		buf = buf[:0]
		for _, c := range p {
			if r := textEscapes[c]; r != "" {
				buf = append(buf, r...)
				continue
			}
			buf = append(buf, c)
		}
		if b.err == nil {
			_, b.err = b.w.Write(buf)
		}
	})
}
