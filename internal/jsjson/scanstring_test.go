package jsjson

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"slices"
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
			wEnd, wEsc, wOK := strRef(b, at)
			for _, simd := range []bool{hasAVX2, false} {
				end, esc, ok := scanWith(simd, b, at)
				if ok != wOK || ok && (end != wEnd || esc != wEsc) {
					t.Fatalf("ScanString(%q) (AVX2 %v) = %d %v %v, want %d %v %v", b, simd, end, esc, ok, wEnd, wEsc, wOK)
				}
			}
		}
	})
}

// scanWith is ScanString with skipBlocksAVX2 used or not.
func scanWith(simd bool, b []byte, i int) (int, bool, bool) {
	defer func(old bool) { hasAVX2 = old }(hasAVX2)
	hasAVX2 = simd
	return ScanString(b, i)
}

// skipRef is skipBlocks in Go: the blocks it skips are those strBlocks
// needs nothing of but their carry and whether they have backslashes; the
// block it stops at closes the string when its first unescaped quote
// comes before any control character and any escape but the frequent ones.
func skipRef(b []byte, carry uint64) (k int, next uint64, esc, closed bool) {
	for ; k+64 <= len(b); k += 64 {
		q, bs, ctl := masksRef((*[64]byte)(b[k : k+64]))
		e, n := escapedBits(bs, carry)
		named := uint64(0)
		for j, c := range b[k : k+64] {
			if strings.IndexByte(`"\/nrt`, c) >= 0 {
				named |= 1 << j
			}
		}
		if stop := q &^ e; stop != 0 || ctl != 0 || e&^named != 0 {
			in := stop&-stop - 1
			if stop != 0 && (ctl|e&^named)&in == 0 {
				return k + bits.TrailingZeros64(stop) + 1, carry, esc || bs&in != 0, true
			}
			break
		}
		esc, carry = esc || bs != 0, n
	}
	return k, carry, esc, false
}

// FuzzSkipBlocks compares skipBlocks (AVX2 when the CPU has it) with
// skipRef on the input repeated over several blocks.
func FuzzSkipBlocks(f *testing.F) {
	f.Add([]byte(`ab\n\t\"x\\`), uint8(0), false)
	f.Add([]byte(`\u00e9 \/`), uint8(3), true)
	f.Fuzz(func(t *testing.T, in []byte, off uint8, carry bool) {
		if len(in) == 0 {
			return
		}
		b := bytes.Repeat(in, 1+600/len(in))[off%64:]
		c := uint64(0)
		if carry {
			c = 1
		}
		k, n, esc, cl := skipBlocks(b, c)
		wk, wn, wesc, wcl := skipRef(b, c)
		if !hasAVX2 {
			wk, wn, wesc, wcl = 0, c, false, false
		}
		if k != wk || n != wn || esc != wesc || cl != wcl {
			t.Fatalf("skipBlocks(%q, %d) = %d %d %v %v, want %d %d %v %v", b, c, k, n, esc, cl, wk, wn, wesc, wcl)
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

// TestSkipBlocksRandom checks skipBlocks and ScanString, with and
// without AVX2, on strings of pieces that matter to them (escapes, runs of
// backslashes, quotes, control characters), in proportions where long
// runs of clean blocks occur.
func TestSkipBlocksRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	plain := []string{"a", "b c", "xyz!", `\n`, `\t`, `\\`, `\\\\`, `\"`, `\/`, `\r`}
	for _, rare := range [][]string{nil, {`"`}, {`\u00e9`}, {"\x01"}, {`\`}, {`\b`, `\f`, `\u12G4`}} {
		pieces := append(slices.Repeat(plain, 20), rare...)
		for range 1000 {
			var b []byte
			for n := 64 + r.IntN(400); len(b) < n; {
				b = append(b, pieces[r.IntN(len(pieces))]...)
			}
			c := uint64(r.IntN(2))
			k, n, esc, cl := skipBlocks(b, c)
			wk, wn, wesc, wcl := skipRef(b, c)
			if hasAVX2 && (k != wk || n != wn || esc != wesc || cl != wcl) {
				t.Fatalf("skipBlocks(%q, %d) = %d %d %v %v, want %d %d %v %v", b, c, k, n, esc, cl, wk, wn, wesc, wcl)
			}
			b = append([]byte{'"'}, b...)
			wEnd, wEsc, wOK := strRef(b, 0)
			for _, simd := range []bool{hasAVX2, false} {
				end, esc, ok := scanWith(simd, b, 0)
				if ok != wOK || ok && (end != wEnd || esc != wEsc) {
					t.Fatalf("ScanString(%q) (AVX2 %v) = %d %v %v, want %d %v %v", b, simd, end, esc, ok, wEnd, wEsc, wOK)
				}
			}
		}
	}
}
