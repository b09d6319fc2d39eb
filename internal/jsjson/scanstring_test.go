package jsjson

import (
	"bytes"
	"strings"
	"testing"
)

// strRef is ScanString written byte by byte, the reference for the word
// and block versions.
func strRef(b []byte, i int) (int, bool, bool) {
	esc := false
	for i++; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			if i = skipEscape(b, i); i < 0 {
				return 0, false, false
			}
			esc = true
		default:
			i++
		}
	}
	return 0, false, false
}

// FuzzScanString compares ScanString with strRef on the input as one
// string and on the input repeated past several 64-byte blocks, so that
// escapes, quotes and control characters fall on every block position.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`abc"`, `a\"b"`, `\\"`, `\\\"x"`, `\u00e9"`, `\u00g9"`, "a\x01\"", `a\`,
		strings.Repeat(`x\n`, 40) + `"`, strings.Repeat(`\\`, 33) + `\"` + `"`, strings.Repeat("a", 63) + `\"`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, pad uint8) {
		for _, b := range [][]byte{in, bytes.Repeat(in, 1+300/(len(in)+1))} {
			b = append(append([]byte(strings.Repeat("p", int(pad%70))), '"'), b...)
			at := int(pad % 70)
			end, esc, ok := ScanString(b, at)
			wEnd, wEsc, wOK := strRef(b, at)
			if ok != wOK || ok && (end != wEnd || esc != wEsc) {
				t.Fatalf("ScanString(%q) = %d %v %v, want %d %v %v", b, end, esc, ok, wEnd, wEsc, wOK)
			}
		}
	})
}

// masksRef is blockMasks byte by byte.
func masksRef(b *[64]byte) (q, bs, ctl uint64) {
	for i, c := range b {
		bit := uint64(1) << i
		switch {
		case c == '"':
			q |= bit
		case c == '\\':
			bs |= bit
		case c < 0x20:
			ctl |= bit
		}
	}
	return q, bs, ctl
}

func checkMasks(t *testing.T, b *[64]byte) {
	t.Helper()
	q, bs, ctl := masksRef(b)
	for name, f := range map[string]func(*[64]byte) (uint64, uint64, uint64){"blockMasks": blockMasks, "blockMasksGo": blockMasksGo} {
		if gq, gbs, gctl := f(b); gq != q || gbs != bs || gctl != ctl {
			t.Fatalf("%s(%q) = %064b %064b %064b, want %064b %064b %064b", name, b, gq, gbs, gctl, q, bs, ctl)
		}
	}
}

// FuzzBlockMask compares blockMasks (SSE2 on amd64) and blockMasksGo
// with masksRef.
func FuzzBlockMask(f *testing.F) {
	f.Add([]byte(`"\` + "\x00\x1f\x20\x7f\x80\xff!#[]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var b [64]byte
		for i := range b {
			if len(in) > 0 {
				b[i] = in[i%len(in)] + byte(i/len(in))
			}
		}
		checkMasks(t, &b)
	})
}

func TestBlockMaskEveryByte(t *testing.T) {
	for c := range 256 {
		var b [64]byte
		for i := range b {
			b[i] = 'a'
			if i%3 == 0 {
				b[i] = byte(c)
			}
		}
		checkMasks(t, &b)
	}
}
