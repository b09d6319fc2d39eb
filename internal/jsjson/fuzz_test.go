package jsjson_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"piweb/internal/jsjson"
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
		v, err := jsjson.Parse(in)
		if errors.Is(err, jsjson.ErrTooDeep) {
			return
		}
		if valid := jsjson.Valid(in); valid != (err == nil) {
			t.Fatalf("Valid = %v, Parse error = %v", valid, err)
		}
		if e := jsjson.CompactEnd(in, 0); e >= 0 && (jsjson.ValidEnd(in, 0) != e || bytes.ContainsAny(in[:e], "\n\r")) {
			t.Fatalf("CompactEnd = %d, ValidEnd = %d", e, jsjson.ValidEnd(in, 0))
		}
		if err != nil {
			if jsjson.IsCanonical(in) {
				t.Fatalf("IsCanonical accepts invalid input")
			}
			return
		}
		out := jsjson.Stringify(v)
		if e := jsjson.CompactEnd(out, 0); e != len(out) {
			t.Fatalf("CompactEnd(Stringify(v) = %q) = %d", out, e)
		}
		if !jsjson.IsCanonical(out) {
			t.Fatalf("IsCanonical(Stringify(v)) = false for %q", out)
		}
		if jsjson.IsCanonical(in) != bytes.Equal(in, out) {
			t.Fatalf("IsCanonical(%q) = %v, Stringify = %q", in, jsjson.IsCanonical(in), out)
		}
	})
}

func FuzzCanonical(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := jsjson.Canonical(in)
		if err != nil {
			return
		}
		c2, err := jsjson.Canonical(c)
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
		out := jsjson.AppendString(nil, s)
		if !jsjson.IsCanonical(out) {
			t.Fatalf("AppendString(%q) = %q is not canonical", s, out)
		}
		v, err := jsjson.Parse(out)
		if err != nil || v.Str() != jsjson.WellFormed(s) {
			t.Fatalf("AppendString(%q) = %q does not parse back (%v)", s, out, err)
		}
	})
}
