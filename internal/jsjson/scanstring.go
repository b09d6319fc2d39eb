package jsjson

import (
	"encoding/binary"
	"math/bits"
)

// ScanString validates the JSON string that starts with the quote at b[i]
// as JSON.parse would (every escape well formed, no raw control character;
// bytes from 0x80 up are not checked, since Node replaces invalid UTF-8
// rather than rejecting it). It returns the offset after the closing quote
// and whether the string has escapes, or ok false when the string is
// invalid or not closed within b. b[i] must be a quote.
//
// ScanString is the string scan of every validator in piweb (Valid, the
// session parser's, the index's listing pass): string bodies are most of a
// session's bytes. Most strings are short keys and ids, read eight bytes at
// a time; after the first minWords words, a string (tool output, with an
// escape every few dozen bytes) is read 64 bytes at a time with the bit
// masks of strBlocks, which spares a hard to predict branch per escape.
func ScanString(b []byte, i int) (end int, escaped, ok bool) {
	esc := false
	i++
	for words := 0; ; {
		if words >= minWords && i+64 <= len(b) {
			end, e, ok := strBlocks(b, i)
			if !ok || end >= 0 {
				return end, esc || e, ok
			}
			esc = esc || e
			i = -end - 1
			words = 0
		}
		for ; i+8 <= len(b); i += 8 {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				goto found
			}
			if words++; words >= minWords && i+72 <= len(b) {
				i += 8
				goto next
			}
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			return 0, false, false
		}
	found:
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return 0, false, false
		}
		esc = true
		if i+1 < len(b) && shortEscape[b[i+1]] {
			i += 2
		} else if unicodeEscape(b, i) {
			i += 6
		} else {
			return 0, false, false
		}
	next:
	}
}

// minWords is how many plain words ScanString reads before strBlocks
// takes over: 4 (32 bytes) measured 3-4 % faster than 2 on the scan of
// sessions of 2 KB and 830-byte entries, once skipBlocksAVX2 could close a
// string itself; 1 was 15 % slower (short strings paid the 64-byte block).
const minWords = 4

// special marks, in the high bit of each byte of w, exactly the bytes that
// end a plain run of a JSON string: a quote, a backslash or a control
// character. No test borrows or carries across bytes (each byte's low seven
// bits plus 0x7F or 0x60 stay below 0x100), so every mark can be used, not
// only the lowest as with stops.
func special(w uint64) uint64 {
	const low7 = ones * 0x7F
	q := w ^ (ones * '"')
	s := w ^ (ones * '\\')
	isQ := (q&low7 + low7) | q
	isS := (s&low7 + low7) | s
	isC := (w&low7 + ones*0x60) | w
	return ^(isQ & isS & isC) & highs
}

// strBlocks validates string bytes from b[i], 64 at a time, while 64
// remain. It returns the offset after the closing quote, or, when it ran
// out of whole blocks inside the string, -1-i for the offset i to go on
// from; esc tells whether it saw escapes.
//
// Each block is three masks (quotes, backslashes, control characters), and
// which characters are escaped is found for the whole block at once
// (escapedBits), so a run of backslashes costs no branch: the closing quote
// is the first quote not escaped, no control character may come before it,
// and only the escaped characters other than a quote or a backslash (\n,
// \t, \u...) are looked at one by one, with no dependence between them.
func strBlocks(b []byte, i int) (end int, esc, ok bool) {
	carry := uint64(0) // 1: b[i] is escaped by a backslash of the previous block
	for ; i+64 <= len(b); i += 64 {
		k, next, skipped, closed := skipBlocks(b[i:], carry)
		if closed {
			return i + k, esc || skipped, true
		}
		if k > 0 {
			i, carry, esc = i+k, next, esc || skipped
			if i+64 > len(b) {
				break
			}
		}
		q, bs, ctl := blockMasks((*[64]byte)(b[i : i+64]))
		if q|bs|ctl|carry == 0 { // most blocks of a long string
			continue
		}
		var e uint64
		if bs|carry != 0 {
			e, carry = escapedBits(bs, carry)
		}
		in := ^uint64(0) // the bits inside the string
		stop := q &^ e
		if stop != 0 {
			in = stop&-stop - 1
		}
		if ctl&in != 0 {
			return 0, esc, false
		}
		esc = esc || bs&in != 0
		for x := e & in &^ (q | bs); x != 0; x &= x - 1 {
			p := i + bits.TrailingZeros64(x)
			if !shortEscape[b[p]] && !unicodeEscape(b, p-1) {
				return 0, esc, false
			}
		}
		if stop != 0 {
			return i + bits.TrailingZeros64(stop) + 1, esc, true
		}
	}
	if carry != 0 { // the first byte of the rest is an escaped character
		if i >= len(b) || !shortEscape[b[i]] && !unicodeEscape(b, i-1) {
			return 0, esc, false
		}
		i++
	}
	return -1 - i, esc, true
}

// escapedBits returns the bits of the characters of a 64-byte block that a
// backslash escapes, given the block's backslashes bs and carry, 1 when
// the block's first byte is escaped by the previous one; and the carry for
// the next block. A run of backslashes escapes every second character
// after its start, and the one after the run when the run is odd: the
// addition sends a carry through each run that starts on an odd bit, which
// flips the parity it is read with (the method of simdjson's stage 1).
func escapedBits(bs, carry uint64) (escaped, next uint64) {
	const even = 0x5555555555555555
	bs &^= carry
	follows := bs<<1 | carry
	seq, next := bits.Add64(bs&^even&^follows, bs, 0)
	return (even ^ seq<<1) & follows, next
}

// blockMasksGo returns the bits of the quotes, backslashes and control
// characters of the 64 bytes of b. blockMasks is this in SSE2 on amd64
// (blockmask_amd64.s), where it measured a tenth of the index's cold
// listing time in Go.
func blockMasksGo(b *[64]byte) (q, bs, ctl uint64) {
	const low7 = ones * 0x7F
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		x, y := w^(ones*'"'), w^(ones*'\\')
		q |= compact(^((x&low7+low7)|x)&highs) << k
		bs |= compact(^((y&low7+low7)|y)&highs) << k
		ctl |= compact(^((w&low7+ones*0x60)|w)&highs) << k
	}
	return q, bs, ctl
}

// unicodeEscape reports whether a \uXXXX escape starts at b[i]. It is
// small enough to be inlined, which keeps the hot loops above free of a
// call (skipEscape in its place measured 4% slower on tool output).
func unicodeEscape(b []byte, i int) bool {
	if i+6 > len(b) || b[i+1] != 'u' {
		return false
	}
	for _, c := range b[i+2 : i+6] {
		if !isHex(c) {
			return false
		}
	}
	return true
}

// compact gathers the high bits of the eight bytes of m into one byte.
func compact(m uint64) uint64 {
	return (m >> 7) * 0x0102040810204080 >> 56
}
