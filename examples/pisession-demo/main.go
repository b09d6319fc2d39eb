// Command pisession-demo prints the context pi would send to the model for
// a session file: the messages on the branch that ends at the file's leaf
// (or at the entry given with -leaf), one line each.
//
// It is the example module of piweb's session library, piweb/pisession: a
// separate module that imports the library as any other program would
// (its go.mod requires piweb and replaces it with this checkout).
//
//	go run . [-leaf ID] FILE.jsonl
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"piweb/pisession"
)

func main() {
	leaf := flag.String("leaf", "", "entry `id` whose context to print (default: pi's leaf, the last entry)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: pisession-demo [-leaf ID] FILE.jsonl")
		os.Exit(2)
	}
	if err := printContext(os.Stdout, flag.Arg(0), *leaf); err != nil {
		fmt.Fprintln(os.Stderr, "pisession-demo:", err)
		os.Exit(1)
	}
}

// printContext writes the session's name and the context at leafID.
func printContext(w io.Writer, path, leafID string) error {
	s, err := pisession.ReadFile(path)
	if err != nil {
		return err
	}
	if s.Header == nil {
		return pisession.ErrNoHeader
	}
	fmt.Fprintf(w, "session %q, %d entries, %d problems\n", s.Name(), len(s.Entries), len(s.Problems))
	c := s.Context(leafID)
	for i, raw := range c.Messages {
		m, _ := pisession.DecodeMessage(raw)
		fmt.Fprintf(w, "%s %-9s %s\n", c.EntryIDs[i], m.Role, oneLine(m.Content.Text(" "), 72))
	}
	return nil
}

// oneLine joins text's lines and cuts it at n runes.
func oneLine(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}
