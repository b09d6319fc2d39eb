package session

import (
	"testing"
)

// TestTypedDecodeFixtures decodes every record of every fixture into the
// typed views; real pi output must never fail to decode.
func TestTypedDecodeFixtures(t *testing.T) {
	roles := map[string]int{}
	blocks := map[string]int{}
	for _, f := range sharedFixtures(t) {
		s, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DecodeHeader(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		for _, e := range s.Entries {
			fl, err := e.Fields()
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			if fl.Message == nil {
				continue
			}
			roles[fl.Message.Role]++
			if fl.Message.Content != nil {
				for _, b := range fl.Message.Content.Blocks {
					blocks[b.Type]++
				}
			}
		}
	}
	for _, r := range []string{"user", "assistant", "toolResult", "bashExecution"} {
		if roles[r] == 0 {
			t.Errorf("no %s message decoded", r)
		}
	}
	for _, b := range []string{"text", "thinking", "toolCall"} {
		if blocks[b] == 0 {
			t.Errorf("no %s block decoded", b)
		}
	}
}

// TestUnknownFieldsKept checks that undocumented members survive decoding.
func TestUnknownFieldsKept(t *testing.T) {
	line := `{"type":"message","id":"a","parentId":null,"timestamp":"t","extra":1,"message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"},"partialJson":"{","weird":true}],"newField":"x","timestamp":1}}`
	s := Parse([]byte(hdr + "\n" + line + "\n"))
	f, err := s.Entries[0].Fields()
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Unknown) != `{"extra":1}` {
		t.Errorf("entry unknown = %s", f.Unknown)
	}
	if string(f.Message.Unknown) != `{"newField":"x"}` {
		t.Errorf("message unknown = %s", f.Message.Unknown)
	}
	b := f.Message.Content.Blocks[0]
	if b.PartialJSON != "{" || string(b.Unknown) != `{"weird":true}` || string(b.Arguments) != `{"command":"ls"}` {
		t.Errorf("block = %+v", b)
	}
}
