package jsjson

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func addSeeds(f *testing.F) {
	for _, in := range trickyInputs() {
		f.Add(in)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 50 {
		doc := genText(r)
		f.Add(doc)
		f.Add(mutate(r, doc))
	}
}

func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Parse(in)
		if errors.Is(err, ErrTooDeep) {
			return
		}
		if valid := Valid(in); valid != (err == nil) {
			t.Fatalf("Valid = %v, Parse error = %v", valid, err)
		}
		if err != nil {
			if IsCanonical(in) {
				t.Fatalf("IsCanonical accepts invalid input")
			}
			return
		}
		out := Stringify(v)
		if !IsCanonical(out) {
			t.Fatalf("IsCanonical(Stringify(v)) = false for %q", out)
		}
		if IsCanonical(in) != bytes.Equal(in, out) {
			t.Fatalf("IsCanonical(%q) = %v, Stringify = %q", in, IsCanonical(in), out)
		}
	})
}

func FuzzCanonical(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := Canonical(in)
		if err != nil {
			return
		}
		c2, err := Canonical(c)
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("Canonical not idempotent: %q -> %q -> %q (%v)", in, c, c2, err)
		}
	})
}

func FuzzAppendString(f *testing.F) {
	for _, s := range genPieces {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if !IsCanonical(out) {
			t.Fatalf("AppendString(%q) = %q is not canonical", s, out)
		}
		v, err := Parse(out)
		if err != nil || v.Str() != wellFormed(s) {
			t.Fatalf("AppendString(%q) = %q does not parse back (%v)", s, out, err)
		}
	})
}
