package pisession

import "testing"

func TestIDFromFileName(t *testing.T) {
	const id = "019a2363-2ea9-75ce-baab-54327df9497a"
	tests := []struct {
		path, want string
	}{
		{"/home/u/.pi/agent/sessions/--home-u-p--/" + FileName("2025-12-09T00:52:54.397Z", id), id},
		{"relative/2025-12-09T00-52-54-397Z_" + id + ".jsonl", id},
		{`C:\Users\u\.pi\agent\sessions\x\2025-12-09T00-52-54-397Z_` + id + ".jsonl", id},
		{"/s/2025-12-09T00-52-54-397Z_019A2363-2EA9-75CE-BAAB-54327DF9497A.jsonl", id},
		{"/s/" + id + ".jsonl", ""},                         // no "_": not pi's name
		{"/s/my_notes.jsonl", ""},                           // not a uuid
		{"/s/x_" + id + ".json", ""},                        // not .jsonl
		{"/s/x_{" + id + "}.jsonl", ""},                     // a uuid form pi never writes
		{"/d_" + id + "/session.jsonl", ""},                 // the id is in a folder name
		{"/s/x_019a23632ea975cebaab54327df9497a.jsonl", ""}, // without dashes
		{"", ""},
	}
	for _, tt := range tests {
		if got := IDFromFileName(tt.path); got != tt.want {
			t.Errorf("IDFromFileName(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
