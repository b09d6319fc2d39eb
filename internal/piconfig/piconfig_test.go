package piconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"piweb/internal/testkit"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{AgentDir: t.TempDir(), Now: func() time.Time { return time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC) }}
}

func write(t *testing.T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

// The expected texts are what pi 1.6.0's persistScopedSettings writes for
// the same file and changes (checked against real pi in TestPiReadsWhatPiwebWrote
// for the keys pi then uses).
func TestUpdateSettings(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		changes      []Change
		want         string
	}{
		{"new file", "", []Change{{Key: "steeringMode", Value: raw(`"all"`)}},
			"{\n  \"steeringMode\": \"all\"\n}"},
		{"unknown keys kept in order, value replaced in place",
			`{"zeta":1,"defaultModel":"a","lastChangelogVersion":"1.6.0","x":{"y":[1,{}],"z":[]}}`,
			[]Change{{Key: "defaultModel", Value: raw(`"b"`)}, {Key: "defaultProvider", Value: raw(`"p"`)}},
			"{\n  \"zeta\": 1,\n  \"defaultModel\": \"b\",\n  \"lastChangelogVersion\": \"1.6.0\",\n  \"x\": {\n    \"y\": [\n      1,\n      {}\n    ],\n    \"z\": []\n  },\n  \"defaultProvider\": \"p\"\n}"},
		{"nested member replaced, others kept", `{"compaction":{"reserveTokens":1,"enabled":true}}`,
			[]Change{{Key: "compaction", Sub: "enabled", Value: raw(`false`)}},
			"{\n  \"compaction\": {\n    \"reserveTokens\": 1,\n    \"enabled\": false\n  }\n}"},
		{"removal", `{"a":1,"followUpMode":"all","b":2}`, []Change{{Key: "followUpMode"}},
			"{\n  \"a\": 1,\n  \"b\": 2\n}"},
		{"migrations applied as pi does on write", `{"queueMode":"all","websockets":true,"retry":{"maxDelayMs":5,"enabled":true}}`,
			[]Change{{Key: "retry", Sub: "maxRetries", Value: raw(`1`)}},
			"{\n  \"retry\": {\n    \"enabled\": true,\n    \"provider\": {\n      \"maxRetryDelayMs\": 5\n    },\n    \"maxRetries\": 1\n  },\n  \"steeringMode\": \"all\",\n  \"transport\": \"websocket\"\n}"},
		{"BOM and numbers as JavaScript writes them", "\ufeff{\"n\":1.0e2,\"s\":\"\\u00e9\\/\"}",
			[]Change{{Key: "hideThinkingBlock", Value: raw(`true`)}},
			"{\n  \"n\": 100,\n  \"s\": \"é/\",\n  \"hideThinkingBlock\": true\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			if tc.before != "" {
				write(t, s.SettingsPath(), tc.before, 0o644)
			}
			if err := s.UpdateSettings("", true, tc.changes, false); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, string(testkit.ReadFile(t, s.SettingsPath()))); d != "" {
				t.Errorf("settings.json (-want +got):\n%s", d)
			}
			if tc.before != "" && string(testkit.ReadFile(t, s.SettingsPath()+".bak")) != tc.before {
				t.Errorf("backup differs from the previous content")
			}
		})
	}
}

func TestSettingsRefused(t *testing.T) {
	s := newStore(t)
	for _, c := range []Change{
		{Key: "steeringMode", Value: raw(`"some"`)},
		{Key: "compaction", Sub: "reserveTokens", Value: raw(`-1`)},
		{Key: "compaction", Sub: "reserveTokens", Value: raw(`1.5`)},
		{Key: "retry", Sub: "enabled", Value: raw(`"yes"`)},
		{Key: "enabledModels", Value: raw(`["a",1]`)},
		{Key: "shellPath", Value: raw(`"/bin/sh"`)},
		{Key: "defaultThinkingLevel", Value: raw(`"huge"`)},
	} {
		err := s.UpdateSettings("", true, []Change{c}, false)
		var ie *InvalidError
		if !errors.As(err, &ie) {
			t.Errorf("%+v: err = %v, want an InvalidError", c, err)
		}
	}
	if _, err := os.Stat(s.SettingsPath()); err == nil {
		t.Errorf("a refused change wrote settings.json")
	}
	proj := t.TempDir()
	if err := s.UpdateSettings(proj, false, []Change{{Key: "steeringMode", Value: raw(`"all"`)}}, false); !errors.Is(err, ErrUntrusted) {
		t.Errorf("untrusted project: err = %v", err)
	}
}

func TestCorruptNeverOverwritten(t *testing.T) {
	s := newStore(t)
	bad := "{\"defaultModel\": \"a\",\n"
	write(t, s.SettingsPath(), bad, 0o644)
	f := s.ReadSettings("")
	if !strings.Contains(f.Error, "not valid JSON") || string(f.Settings) != "{}" {
		t.Errorf("ReadSettings = %+v", f)
	}
	ch := []Change{{Key: "steeringMode", Value: raw(`"all"`)}}
	var ce *CorruptError
	if err := s.UpdateSettings("", true, ch, false); !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a CorruptError", err)
	}
	if string(testkit.ReadFile(t, s.SettingsPath())) != bad {
		t.Fatal("corrupt file overwritten")
	}
	if err := s.UpdateSettings("", true, ch, true); err != nil {
		t.Fatal(err)
	}
	if got := string(testkit.ReadFile(t, s.SettingsPath()+".corrupt-20261203T180000Z")); got != bad {
		t.Errorf("corrupt copy = %q", got)
	}
	write(t, s.AuthPath(), "[1]", 0o600)
	if err := s.SetAPIKey("openai", "sk-1234567890abcd", false); !errors.As(err, &ce) {
		t.Errorf("auth.json not an object: err = %v", err)
	}
}

func TestAuth(t *testing.T) {
	s := newStore(t)
	write(t, s.AuthPath(), `{"anthropic":{"type":"oauth","access":"a","refresh":"r","expires":1},"openai":{"type":"api_key","key":"old"}}`, 0o640)
	if err := s.SetAPIKey("openai", "sk-proj-abcdefghijklmnop", false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetAPIKey("fake", "fake-key-123456789", false); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"anthropic\": {\n    \"type\": \"oauth\",\n    \"access\": \"a\",\n    \"refresh\": \"r\",\n    \"expires\": 1\n  },\n  \"openai\": {\n    \"type\": \"api_key\",\n    \"key\": \"sk-proj-abcdefghijklmnop\"\n  },\n  \"fake\": {\n    \"type\": \"api_key\",\n    \"key\": \"fake-key-123456789\"\n  }\n}"
	if d := cmp.Diff(want, string(testkit.ReadFile(t, s.AuthPath()))); d != "" {
		t.Errorf("auth.json (-want +got):\n%s", d)
	}
	for _, p := range []string{s.AuthPath(), s.AuthPath() + ".bak"} {
		if fi, _ := os.Stat(p); fi.Mode().Perm()&0o007 != 0 {
			t.Errorf("%s mode %v", p, fi.Mode())
		}
	}
	got := s.ReadAuth().Credentials
	wantCreds := []Credential{{Provider: "anthropic", Type: "oauth"}, {Provider: "fake", Type: "api_key", Masked: "••••••••6789"}, {Provider: "openai", Type: "api_key", Masked: "••••••••mnop"}}
	if d := cmp.Diff(wantCreds, got); d != "" {
		t.Errorf("credentials (-want +got):\n%s", d)
	}
	if b, _ := json.Marshal(s.ReadAuth()); strings.Contains(string(b), "abcdefgh") {
		t.Errorf("a key leaks: %s", b)
	}
	if err := s.RemoveCredential("openai"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(testkit.ReadFile(t, s.AuthPath())), "openai") {
		t.Errorf("openai not removed")
	}
}

func TestNewAuthFileMode(t *testing.T) {
	s := newStore(t)
	s.AgentDir = filepath.Join(s.AgentDir, "new")
	if err := s.SetAPIKey("openai", "sk-abc", false); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{s.AuthPath(): 0o600, s.AgentDir: 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode(), err, want)
		}
	}
}

func TestBadKeys(t *testing.T) {
	s := newStore(t)
	for _, k := range []string{"", "  ", "sk-a\nsk-b", "sk\r", "a\x00b", strings.Repeat("k", 100<<10), "\xff\xfe"} {
		var ie *InvalidError
		if err := s.SetAPIKey("openai", k, false); !errors.As(err, &ie) {
			t.Errorf("key %.20q: err = %v", k, err)
		}
	}
	if _, err := os.Stat(s.AuthPath()); err == nil {
		t.Errorf("a refused key created auth.json")
	}
}

func TestLockHeldByPi(t *testing.T) {
	s := newStore(t)
	s.LockWait = 100 * time.Millisecond
	if err := os.Mkdir(s.SettingsPath()+".lock", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateSettings("", true, []Change{{Key: "steeringMode", Value: raw(`"all"`)}}, false); !errors.Is(err, ErrLocked) {
		t.Errorf("err = %v, want ErrLocked", err)
	}
	old := time.Now().Add(-time.Minute) // a lock left by a pi that died is taken over
	os.Chtimes(s.SettingsPath()+".lock", old, old)
	if err := s.UpdateSettings("", true, []Change{{Key: "steeringMode", Value: raw(`"all"`)}}, false); err != nil {
		t.Errorf("stale lock: %v", err)
	}
	if _, err := os.Stat(s.SettingsPath() + ".lock"); err == nil {
		t.Errorf("lock left behind")
	}
}

func TestModels(t *testing.T) {
	s := newStore(t)
	cfg := `{"providers":{"acme":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"sk-literal","models":[{"id":"m1","contextWindow":1000}]},"env":{"apiKey":"ACME_KEY"}}}`
	if err := s.WriteModels(raw(cfg)); err != nil {
		t.Fatal(err)
	}
	f, err := s.ReadModels()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(f.Config), "sk-literal") || !strings.Contains(string(f.Config), `"apiKey":"***"`) || !strings.Contains(string(f.Config), "ACME_KEY") {
		t.Errorf("masking: %s", f.Config)
	}
	if err := s.WriteModels(f.Config); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(testkit.ReadFile(t, s.ModelsPath())), "sk-literal") {
		t.Errorf("stored key lost")
	}
	for _, bad := range []string{`{"providers":[]}`, `{"providers":{"p":{"api":1}}}`, `{"providers":{"p":{"models":[{"id":""}]}}}`, `[]`} {
		var ie *InvalidError
		if err := s.WriteModels(raw(bad)); !errors.As(err, &ie) {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
	if n := len(s.ConfigModels()); n != 1 {
		t.Errorf("ConfigModels: %d", n)
	}
}
