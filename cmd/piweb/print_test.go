package main

import (
	"math"
	"testing"
	"time"
)

func TestTimeColumns(t *testing.T) {
	ms := time.Date(2026, 11, 2, 9, 30, 0, 0, time.Local).UnixMilli()
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"hit with time", hitTime(ms), "2026-11-02 09:30"},
		{"hit without time", hitTime(0), "no time"},
		{"listing NaN", when(math.NaN()), "invalid date"},
		{"listing beyond a Date", when(9e15), "invalid date"},
		{"listing epoch", when(0), time.UnixMilli(0).Local().Format("2006-01-02 15:04")},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
