package index

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func FuzzValidObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, ` {"a":[1,2,{"b":null}]} `, `{"a":"\u00e9\n"}`, `{"a":"x` + "\x01" + `"}`,
		`{"a":1,}`, `{"a":01}`, `{"a":-0.5e+3}`, `[]`, `{"a\"":1}`, `{"a":"12345678\"12345678"}`, `{"a":"1234567\\"}`, hdr, usr, asst} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ok := validObject(b)
		var v any
		if ok && json.Unmarshal(b, &v) != nil {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if ok {
			if _, isObj := v.(map[string]any); !isObj {
				t.Fatalf("accepted non-object %q", b)
			}
		}
	})
}

// strRef is the validator's string scan written byte by byte, the
// reference for the word and block versions.
func strRef(b []byte, i int) (int, bool, bool) {
	esc := false
	for i++; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return 0, false, false
		case c == '\\':
			n, ok := escape(b, i)
			if !ok {
				return 0, false, false
			}
			esc, i = true, i+n
		default:
			i++
		}
	}
	return 0, false, false
}

// FuzzStr compares the string scan with strRef on the input as one string
// and on the input repeated past several 64-byte blocks, so that escapes,
// quotes and control characters fall on every block position.
func FuzzStr(f *testing.F) {
	for _, s := range []string{`abc"`, `a\"b"`, `\\"`, `\\\"x"`, `\u00e9"`, `\u00g9"`, "a\x01\"", `a\`,
		strings.Repeat(`x\n`, 40) + `"`, strings.Repeat(`\\`, 33) + `\"` + `"`, strings.Repeat("a", 63) + `\"`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, pad uint8) {
		for _, b := range [][]byte{in, bytes.Repeat(in, 1+300/(len(in)+1))} {
			b = append(append([]byte(strings.Repeat("p", int(pad%70))), '"'), b...)
			at := int(pad % 70)
			v := validator{b: b}
			end, esc, ok := v.str(at)
			wEnd, wEsc, wOK := strRef(b, at)
			if ok != wOK || ok && (end != wEnd || esc != wEsc) {
				t.Fatalf("str(%q) = %d %v %v, want %d %v %v", b, end, esc, ok, wEnd, wEsc, wOK)
			}
		}
	})
}

// FuzzBlockMask compares blockMask (SSE2 on amd64) with blockMaskGo.
func FuzzBlockMask(f *testing.F) {
	f.Add([]byte(`"\` + "\x00\x1f\x20\x7f\x80\xff!#[]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var b [64]byte
		for i := range b {
			if len(in) > 0 {
				b[i] = in[i%len(in)] + byte(i/len(in))
			}
		}
		if got, want := blockMask(&b), blockMaskGo(&b); got != want {
			t.Fatalf("blockMask(%q) = %064b, want %064b", b, got, want)
		}
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
		if got, want := blockMask(&b), blockMaskGo(&b); got != want {
			t.Fatalf("byte %#x: %064b, want %064b", c, got, want)
		}
	}
}
