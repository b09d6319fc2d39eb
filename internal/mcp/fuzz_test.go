package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
)

// FuzzServe: whatever the client sends, every answer is one line of
// JSON-RPC 2.0, there are no more answers than lines, and nothing panics
// (a panic would be answered -32603).
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/list"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"zanzibar project:api role:user","limit":3}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_context","arguments":{"sessionId":"0193aaaa","start":-5,"maxChars":1000}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_entry","arguments":{"sessionId":"0193bbbb","entryId":"w1","offset":7}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_sessions","arguments":{"project":"web","offset":1}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"id":null}`, "\x00\n\xff{", `{"jsonrpc":"2.0","id":-1e999,"method":"ping"}`,
	} {
		f.Add([]byte(seed))
	}
	s := testServer(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		if err := s.Serve(context.Background(), bytes.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
		if out.Len() > 0 && len(lines) > bytes.Count(in, []byte("\n"))+1 {
			t.Fatalf("%d answers to %d lines", len(lines), bytes.Count(in, []byte("\n"))+1)
		}
		for _, l := range lines {
			var r struct {
				JSONRPC string
				Error   *rpcError
			}
			if out.Len() > 0 && (json.Unmarshal(l, &r) != nil || r.JSONRPC != "2.0") {
				t.Fatalf("answer %q", l)
			}
			if r.Error != nil && r.Error.Code == codeInternal {
				t.Fatalf("internal error (a panic?) answering %q", in)
			}
		}
	})
}
