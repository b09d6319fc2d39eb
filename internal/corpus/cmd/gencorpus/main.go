// Command gencorpus writes a deterministic corpus of pi sessions as an agent
// dir, for the index benchmarks: go run ./internal/corpus/cmd/gencorpus -out
// DIR -files 5000 -bytes 2GB -seed 1.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"piweb/internal/corpus"
)

func main() {
	out := flag.String("out", "", "agent `dir` to write (sessions/ goes inside)")
	files := flag.Int("files", 5000, "number of session files")
	total := flag.String("bytes", "2GB", "approximate total size (KB, MB, GB suffixes)")
	big := flag.Int("big", 3, "number of big files among them")
	bigSize := flag.String("bigsize", "150MB", "size of each big file")
	seed := flag.Uint64("seed", 1, "generator seed")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		os.Exit(2)
	}
	o := corpus.Options{Files: *files, Bytes: mustSize(*total), BigFiles: *big, BigBytes: mustSize(*bigSize), Seed: *seed}
	start := time.Now()
	st, err := corpus.Generate(*out, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("%d files, %d bytes, %d entries in %v\n", st.Files, st.Bytes, st.Entries, time.Since(start).Round(time.Millisecond))
}

func mustSize(s string) int64 {
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if strings.HasSuffix(strings.ToUpper(s), u.suf) {
			s, mult = s[:len(s)-2], u.m
			break
		}
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus: bad size", s)
		os.Exit(2)
	}
	return int64(n * float64(mult))
}
