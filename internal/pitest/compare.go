package pitest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// CompareJSON fails the test unless want and got are the same JSON value:
// both are decoded into any (numbers as float64, so 1 and 1.0 agree, key
// order ignored) and compared with go-cmp, reporting a -want +got diff.
func CompareJSON(t testing.TB, want, got []byte) {
	t.Helper()
	diff, err := DiffJSON(want, got)
	if err != nil {
		t.Fatalf("pitest: %v", err)
	}
	if diff != "" {
		t.Errorf("JSON mismatch (-want +got):\n%s", diff)
	}
}

// DiffJSON is CompareJSON's comparison: "" when equal, else a diff.
func DiffJSON(want, got []byte) (string, error) {
	var w, g any
	if err := json.Unmarshal(want, &w); err != nil {
		return "", fmt.Errorf("decoding want: %w", err)
	}
	if err := json.Unmarshal(got, &g); err != nil {
		return "", fmt.Errorf("decoding got: %w", err)
	}
	if reflect.DeepEqual(w, g) {
		return "", nil // cmp.Diff is quadratic in nesting depth; skip it when equal
	}
	return cmp.Diff(w, g), nil
}
