package jsjson

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects that Parse accepts.
// JSON.parse has no such limit, but Node's JSON.stringify fails with a
// RangeError below depth 5000, so deeper values cannot occur in what pi
// writes; the limit keeps Parse's recursion bounded. Valid has no limit.
const MaxDepth = 10000

// ErrTooDeep is returned by Parse for input nested deeper than MaxDepth.
var ErrTooDeep = errors.New("jsjson: nesting deeper than MaxDepth")

// SyntaxError describes JSON text that JSON.parse would reject.
type SyntaxError struct {
	Offset int // byte offset of the problem
	msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jsjson: %s at offset %d", e.msg, e.Offset)
}

// strStop[c] reports whether c ends the fast scan of a string body: a
// quote, a backslash or a control character (which JSON.parse rejects).
var strStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// Parse parses one JSON text, accepting exactly what JSON.parse accepts:
// whitespace is only space, tab, LF and CR (no BOM, no NBSP, no U+2028),
// and no trailing commas, comments, leading zeros or raw control characters
// in strings. Invalid UTF-8 inside strings is replaced by U+FFFD, as when
// Node reads the text from a UTF-8 file.
//
// As in a JavaScript object, a duplicated key keeps the position of its
// first occurrence and the value of its last, and array-index keys are
// ordered first. The resulting Value keeps references into one copy of b.
func Parse(b []byte) (Value, error) {
	p := parser{s: string(b)}
	v, err := p.value()
	if err != nil {
		return Value{}, err
	}
	p.skipWS()
	if p.i < len(p.s) {
		return Value{}, p.errorf("unexpected %q after JSON value", p.s[p.i])
	}
	return v, nil
}

type parser struct {
	s     string
	i     int
	depth int
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skipWS() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() (Value, error) {
	p.skipWS()
	if p.i >= len(p.s) {
		return Value{}, p.errorf("unexpected end of JSON input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.string()
		return Value{kind: StringKind, str: s}, err
	case c == 't':
		return p.literal("true", Bool(true))
	case c == 'f':
		return p.literal("false", Bool(false))
	case c == 'n':
		return p.literal("null", Null())
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return Value{}, p.errorf("unexpected %q", p.s[p.i])
}

func (p *parser) literal(word string, v Value) (Value, error) {
	if len(p.s)-p.i < len(word) || p.s[p.i:p.i+len(word)] != word {
		return Value{}, p.errorf("invalid literal")
	}
	p.i += len(word)
	return v, nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return ErrTooDeep
	}
	p.i++ // the opening bracket
	p.skipWS()
	return nil
}

// next consumes the separator after a member or element: it reports
// whether another one follows, or fails if neither ',' nor end is found.
func (p *parser) next(end byte) (bool, error) {
	p.skipWS()
	if p.i >= len(p.s) {
		return false, p.errorf("unexpected end of JSON input")
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return true, nil
	case end:
		p.i++
		p.depth--
		return false, nil
	}
	return false, p.errorf("unexpected %q, want ',' or %q", p.s[p.i], end)
}

func (p *parser) array() (Value, error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	elems := []member{}
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.depth--
		return Value{kind: ArrayKind, elems: elems}, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return Value{}, err
		}
		elems = append(elems, member{val: v})
		more, err := p.next(']')
		if err != nil {
			return Value{}, err
		}
		if !more {
			return Value{kind: ArrayKind, elems: elems}, nil
		}
	}
}

func (p *parser) object() (Value, error) {
	if err := p.enter(); err != nil {
		return Value{}, err
	}
	var o objectBuilder
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.depth--
		return o.value(), nil
	}
	for {
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return Value{}, p.errorf("expected string key")
		}
		k, err := p.string()
		if err != nil {
			return Value{}, err
		}
		p.skipWS()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return Value{}, p.errorf("expected ':' after key")
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return Value{}, err
		}
		o.add(k, v)
		more, err := p.next('}')
		if err != nil {
			return Value{}, err
		}
		if !more {
			return o.value(), nil
		}
	}
}

// objectBuilder collects parsed members with JavaScript semantics: the last
// duplicate wins at the first position, and array-index keys sort first.
type objectBuilder struct {
	ms      []member
	index   map[string]int // built once the object gets large
	indices bool           // some key is an array index
}

func (o *objectBuilder) add(k string, v Value) {
	if i, ok := o.find(k); ok {
		o.ms[i].val = v
		return
	}
	if o.index != nil {
		o.index[k] = len(o.ms)
	}
	o.ms = append(o.ms, member{k, v})
	if len(k) > 0 && k[0] >= '0' && k[0] <= '9' {
		if _, ok := arrayIndex(k); ok {
			o.indices = true
		}
	}
}

func (o *objectBuilder) find(k string) (int, bool) {
	if o.index == nil && len(o.ms) >= 16 {
		o.index = make(map[string]int, 2*len(o.ms))
		for i, m := range o.ms {
			o.index[m.key] = i
		}
	}
	if o.index != nil {
		i, ok := o.index[k]
		return i, ok
	}
	for i := range o.ms {
		if o.ms[i].key == k {
			return i, true
		}
	}
	return 0, false
}

func (o *objectBuilder) value() Value {
	if o.indices {
		slices.SortStableFunc(o.ms, func(a, b member) int {
			ia, oka := arrayIndex(a.key)
			ib, okb := arrayIndex(b.key)
			switch {
			case oka && okb:
				return int(int64(ia) - int64(ib))
			case oka:
				return -1
			case okb:
				return 1
			}
			return 0
		})
	}
	if o.ms == nil {
		o.ms = []member{}
	}
	return Value{kind: ObjectKind, elems: o.ms}
}

// string parses a quoted string at p.i and returns its WTF-8 contents.
func (p *parser) string() (string, error) {
	start := p.i + 1
	i, high := scanPlain(p.s, start)
	if i < len(p.s) && p.s[i] == '"' {
		p.i = i + 1
		if high {
			return wellFormed(p.s[start:i]), nil
		}
		return p.s[start:i], nil
	}
	return p.stringSlow(start, i)
}

// stringSlow decodes the string whose contents start at s[start], once an
// escape or an error was found at s[i].
func (p *parser) stringSlow(start, i int) (string, error) {
	s := p.s
	size := 16
	if end := stringEnd(s, i); end > 0 {
		size = end - start // enough unless invalid UTF-8 grows into U+FFFD
	}
	buf := appendWellFormed(make([]byte, 0, size), s[start:i])
	for {
		if i >= len(s) {
			p.i = i
			return "", p.errorf("unterminated string")
		}
		switch c := s[i]; {
		case c == '"':
			p.i = i + 1
			return string(buf), nil
		case c < 0x20:
			p.i = i
			return "", p.errorf("control character %#02x in string", c)
		case c == '\\':
			var err error
			if buf, i, err = p.escape(buf, i); err != nil {
				return "", err
			}
		}
		j, high := scanPlain(s, i)
		if high {
			buf = appendWellFormed(buf, s[i:j])
		} else {
			buf = append(buf, s[i:j]...)
		}
		i = j
	}
}

// stringEnd returns the index of the quote that ends the string whose body
// contains s[i], or -1. It does not check escapes: it only skips the byte
// after each backslash.
func stringEnd(s string, i int) int {
	for {
		if i, _ = scanPlain(s, i); i >= len(s) || s[i] < 0x20 {
			return -1
		}
		if s[i] == '"' {
			return i
		}
		i += 2
	}
}

// scanPlain returns the index of the first quote, backslash or control
// byte in s from i on (or len(s)), and whether it passed any byte from 0x80
// up, which then needs checking as UTF-8.
func scanPlain[T string | []byte](s T, i int) (int, bool) {
	var high uint64
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		if m := stops(x); m != 0 {
			n := bits.TrailingZeros64(m) >> 3
			high |= x & (1<<(8*n) - 1) & highs
			return i + n, high != 0
		}
		high |= x & highs
	}
	for ; i < len(s) && !strStop[s[i]]; i++ {
		high |= uint64(s[i]) & 0x80
	}
	return i, high != 0
}

// escape decodes the escape sequence at s[i] (a backslash) into buf.
func (p *parser) escape(buf []byte, i int) ([]byte, int, error) {
	s := p.s
	if i+1 >= len(s) {
		p.i = i
		return nil, 0, p.errorf("unterminated string")
	}
	switch c := s[i+1]; c {
	case '"', '\\', '/':
		return append(buf, c), i + 2, nil
	case 'b':
		return append(buf, '\b'), i + 2, nil
	case 'f':
		return append(buf, '\f'), i + 2, nil
	case 'n':
		return append(buf, '\n'), i + 2, nil
	case 'r':
		return append(buf, '\r'), i + 2, nil
	case 't':
		return append(buf, '\t'), i + 2, nil
	case 'u':
		cu, ok := hex4(s, i+2, false)
		if !ok {
			p.i = i
			return nil, 0, p.errorf("invalid \\u escape")
		}
		i += 6
		if cu >= 0xD800 && cu <= 0xDBFF && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if lo, ok := hex4(s, i+2, false); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				r := 0x10000 + (cu-0xD800)<<10 + (lo - 0xDC00)
				return utf8.AppendRune(buf, r), i + 6, nil
			}
		}
		if cu >= 0xD800 && cu <= 0xDFFF {
			return appendSurrogate(buf, cu), i, nil
		}
		return utf8.AppendRune(buf, cu), i, nil
	}
	p.i = i
	return nil, 0, p.errorf("invalid escape")
}

// hex4 decodes four hex digits at s[i:], of either case, or lowercase
// only with lower (the escapes JSON.stringify writes).
func hex4[T string | []byte](s T, i int, lower bool) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F' && !lower:
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func (p *parser) number() (Value, error) {
	start := p.i
	end := skipNumber(p.s, start)
	if end < 0 {
		return Value{}, p.errorf("invalid number")
	}
	p.i = end
	lit := p.s[start:end]
	return Value{kind: NumberKind, num: parseNumber(lit), str: lit}, nil
}

// parseNumber converts a valid JSON number literal to the nearest float64,
// as JavaScript does (overflow gives ±Inf, underflow ±0).
func parseNumber(lit string) float64 {
	if isShortInt(lit) {
		digits := strings.TrimPrefix(lit, "-")
		var n int64
		for i := 0; i < len(digits); i++ {
			n = n*10 + int64(digits[i]-'0')
		}
		if len(digits) < len(lit) {
			return -float64(n)
		}
		return float64(n)
	}
	f, _ := strconv.ParseFloat(lit, 64)
	return f
}
