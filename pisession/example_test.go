package pisession_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"piweb/pisession"
)

// The examples read testdata/example, an agent folder holding one
// session: a user asks for a README, then a LICENSE, goes back and asks
// for a shorter README instead (a second branch), labels that question
// and names the session.

const (
	exampleAgentDir = "testdata/example"
	exampleFile     = exampleAgentDir + "/sessions/--home-user-proj--/" +
		"2026-12-01T10-00-00-000Z_019ad8a0-0000-7000-8000-000000000001.jsonl"
)

// text is the one line a message shows in the examples: its role and text.
func text(raw []byte) string {
	m, _ := pisession.DecodeMessage(raw)
	return m.Role + ": " + m.Content.Text(" ")
}

func ExampleReadFile() {
	s, err := pisession.ReadFile(exampleFile)
	if err != nil {
		fmt.Println(err)
		return
	}
	cwd, _ := s.Header.String("cwd")
	fmt.Println("cwd:", cwd)
	fmt.Println("name:", s.Name())
	fmt.Println("entries:", len(s.Entries), "problems:", len(s.Problems))
	fmt.Println("leaf:", s.Leaf().Type, s.Leaf().ID)
	// Output:
	// cwd: /home/user/proj
	// name: README work
	// entries: 9 problems: 0
	// leaf: session_info n0000001
}

func ExampleSession_Tree() {
	s, _ := pisession.ReadFile(exampleFile)
	var walk func(nodes []*pisession.Node, depth int)
	walk = func(nodes []*pisession.Node, depth int) {
		for _, n := range nodes {
			line := strings.Repeat("  ", depth) + n.Entry.Type + " " + n.Entry.ID
			if m, ok := n.Entry.Message(); ok {
				line += " " + m.Role
			}
			if n.Label != nil {
				line += " [" + string(n.Label) + "]"
			}
			fmt.Println(line)
			walk(n.Children, depth+1)
		}
	}
	walk(s.Tree(), 0)
	// Output:
	// model_change m0000001
	//   message u0000001 user
	//     message a0000001 assistant
	//       message u0000002 user
	//         message a0000002 assistant
	//       message u0000003 user ["shorter"]
	//         message a0000003 assistant
	//           label l0000001
	//             session_info n0000001
}

func ExampleSession_Context() {
	s, _ := pisession.ReadFile(exampleFile)
	c := s.Context("") // pi's leaf: the last entry
	for i, raw := range c.Messages {
		fmt.Printf("%s  %s\n", c.EntryIDs[i], text(raw))
	}
	fmt.Println("model:", string(c.Model))
	// The context of the abandoned branch, at its last answer:
	fmt.Println(len(s.Context("a0000002").Messages), "messages on the other branch")
	// Output:
	// u0000001  user: Write a README
	// a0000001  assistant: README.md written.
	// u0000003  user: Make the README shorter
	// a0000003  assistant: Shortened to five lines.
	// model: {"provider":"fake","modelId":"fake-model"}
	// 4 messages on the other branch
}

func ExampleListAll() {
	for _, in := range pisession.ListAll(exampleAgentDir) {
		fmt.Printf("%s %q in %s: %d messages, first %q\n",
			filepath.Base(in.Path)[:24], in.Name, in.Cwd, in.MessageCount, in.FirstMessage)
	}
	// Output:
	// 2026-12-01T10-00-00-000Z "README work" in /home/user/proj: 6 messages, first "Write a README"
}

// exampleCopy copies the example session into a new temporary folder, so
// that the writing examples leave testdata as it is.
func exampleCopy() (path string, cleanup func()) {
	dir, _ := os.MkdirTemp("", "pisession-example-")
	path = filepath.Join(dir, filepath.Base(exampleFile))
	data, _ := os.ReadFile(exampleFile)
	os.WriteFile(path, data, 0o644)
	return path, func() { os.RemoveAll(dir) }
}

func ExampleAppend() {
	path, cleanup := exampleCopy()
	defer cleanup()
	s, _ := pisession.ReadFile(path)

	// Label the LICENSE answer: one line, one O_APPEND write, refused
	// with ErrChanged if pi appended since s was read.
	e, err := pisession.Append(path, s, s.LabelLine("a0000002", "license"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("appended", e.Type, "after", e.ParentID)

	again, _ := pisession.ReadFile(path)
	label, _ := again.LabelOf("a0000002")
	fmt.Println("label:", label)
	// Output:
	// appended label after n0000001
	// label: license
}

func ExampleFork() {
	path, cleanup := exampleCopy()
	defer cleanup()
	s, _ := pisession.ReadFile(path)

	// A new session holding the LICENSE branch, beside the source.
	forked, err := pisession.Fork(path, s, "a0000002")
	if err != nil {
		fmt.Println(err)
		return
	}
	f, _ := pisession.ReadFile(forked)
	parent, _ := f.Header.String("parentSession")
	fmt.Println("parent is the source:", parent == path)
	for _, raw := range f.Context("").Messages {
		fmt.Println(text(raw))
	}
	// Output:
	// parent is the source: true
	// user: Write a README
	// assistant: README.md written.
	// user: Add a LICENSE too
	// assistant: LICENSE added.
}

func ExampleParse() {
	data := []byte(`{"type":"session","version":3,"id":"s1","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/w"}
{"type":"message","id":"u1","parentId":null,"timestamp":"2026-12-01T10:00:01.000Z","message":{"role":"user","content":"hi",  "timestamp":1}}
{"type":"message","id":"a1","parentId":"u1","timest`)
	s := pisession.Parse(data)
	for _, p := range s.Problems {
		fmt.Println(p.Line, p.Kind)
	}
	// Lossless: the entry keeps its line as written, spaces included.
	fmt.Println(string(s.Entries[0].Raw[len(s.Entries[0].Raw)-32:]))
	fmt.Println(len(s.Context("").Messages), "message in the context")
	// Output:
	// 3 truncated
	// "content":"hi",  "timestamp":1}}
	// 1 message in the context
}
