package piconfig

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"piweb/internal/fakellm"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// rpcPi is one real `pi --mode rpc` (pi 1.6.0) over an agent dir.
type rpcPi struct{ *pitest.RPC }

func startPi(t *testing.T, agentDir string) *rpcPi {
	t.Helper()
	cmd := exec.Command(pitest.PiBin(t), "--mode", "rpc", "--no-session", "--no-context-files")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agentDir, "PI_OFFLINE=1")
	return &rpcPi{pitest.StartRPC(t, cmd)}
}

// call sends one command and returns its response's data.
func (p *rpcPi) call(cmd map[string]any) map[string]any {
	data, _ := p.Call(cmd, 60*time.Second)["data"].(map[string]any)
	return data
}

// modelIDs lists get_available_models as provider/id.
func (p *rpcPi) modelIDs() []string {
	var ids []string
	for _, m := range p.call(map[string]any{"type": "get_available_models"})["models"].([]any) {
		mm := m.(map[string]any)
		ids = append(ids, fmt.Sprint(mm["provider"], "/", mm["id"]))
	}
	return ids
}

// fakeAgentDir is an agent dir whose models.json declares the fake
// provider, with no API key unless withKey.
func fakeAgentDir(t *testing.T, withKey bool) string {
	t.Helper()
	ts := httptest.NewServer(fakellm.New(fakellm.Options{Log: testkit.Log(t)}))
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	cfg := fakellm.ModelsJSON(ts.URL + "/v1")
	if !withKey {
		delete(cfg["providers"].(map[string]any)[fakellm.Provider].(map[string]any), "apiKey")
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	write(t, filepath.Join(dir, "models.json"), string(b), 0o600)
	return dir
}

// TestPiUsesAPIKey: an API key piweb stores in auth.json makes real pi
// list that provider's models, and removing it takes them away again.
func TestPiUsesAPIKey(t *testing.T) {
	dir := fakeAgentDir(t, false)
	s := &Store{AgentDir: dir}
	if ids := startPi(t, dir).modelIDs(); slices.Contains(ids, "fake/fake-model") {
		t.Fatalf("without a key pi lists %v", ids)
	}
	if err := s.SetAPIKey(fakellm.Provider, fakellm.APIKey, false); err != nil {
		t.Fatal(err)
	}
	if ids := startPi(t, dir).modelIDs(); !slices.Contains(ids, "fake/fake-model") || !slices.Contains(ids, "fake/fake-thinker") {
		t.Fatalf("with the key pi lists %v", ids)
	}
	if err := s.RemoveCredential(fakellm.Provider); err != nil {
		t.Fatal(err)
	}
	if ids := startPi(t, dir).modelIDs(); slices.Contains(ids, "fake/fake-model") {
		t.Fatalf("after removal pi lists %v", ids)
	}
}

// TestPiUsesSettings: defaults piweb writes to settings.json are what a
// new pi starts with.
func TestPiUsesSettings(t *testing.T) {
	dir := fakeAgentDir(t, true)
	s := &Store{AgentDir: dir}
	err := s.UpdateSettings("", true, []Change{
		{Key: "defaultProvider", Value: raw(`"fake"`)},
		{Key: "defaultModel", Value: raw(`"fake-thinker"`)},
		{Key: "defaultThinkingLevel", Value: raw(`"high"`)},
		{Key: "steeringMode", Value: raw(`"all"`)},
		{Key: "followUpMode", Value: raw(`"all"`)},
		{Key: "compaction", Sub: "enabled", Value: raw(`false`)},
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	st := startPi(t, dir).call(map[string]any{"type": "get_state"})
	model, _ := st["model"].(map[string]any)
	got := fmt.Sprint(model["provider"], "/", model["id"], " ", st["thinkingLevel"], " ", st["steeringMode"], " ", st["followUpMode"], " ", st["autoCompactionEnabled"])
	if want := "fake/fake-thinker high all all false"; got != want {
		t.Errorf("pi's state = %q, want %q", got, want)
	}
}

// settingsFixture has what a long-used settings.json holds: keys piweb does
// not know, old keys pi migrates on write, nested objects, odd numbers.
const settingsFixture = `{
  "lastChangelogVersion": "1.5.0",
  "queueMode": "one-at-a-time",
  "defaultProvider": "fake",
  "defaultModel": "fake-model",
  "retry": {"maxDelayMs": 30000, "baseDelayMs": 1e3},
  "compaction": {"reserveTokens": 8000},
  "packages": [],
  "theme": "dark",
  "extra": {"nested": {"a": [1, 2.50, "\u00e9"]}}
}
`

// TestWritesMatchPi: for each setting pi itself changes over RPC, piweb's
// write of the same change to the same file gives the same bytes.
func TestWritesMatchPi(t *testing.T) {
	for _, tc := range []struct {
		rpc    map[string]any
		change Change
	}{
		{map[string]any{"type": "set_steering_mode", "mode": "all"}, Change{Key: "steeringMode", Value: raw(`"all"`)}},
		{map[string]any{"type": "set_follow_up_mode", "mode": "all"}, Change{Key: "followUpMode", Value: raw(`"all"`)}},
		{map[string]any{"type": "set_auto_compaction", "enabled": false}, Change{Key: "compaction", Sub: "enabled", Value: raw(`false`)}},
		{map[string]any{"type": "set_auto_retry", "enabled": false}, Change{Key: "retry", Sub: "enabled", Value: raw(`false`)}},
	} {
		t.Run(tc.rpc["type"].(string), func(t *testing.T) {
			piDir, ourDir := fakeAgentDir(t, true), fakeAgentDir(t, true)
			for _, d := range []string{piDir, ourDir} {
				write(t, filepath.Join(d, "settings.json"), settingsFixture, 0o644)
			}
			startPi(t, piDir).call(tc.rpc)
			piPath := filepath.Join(piDir, "settings.json")
			testkit.Eventually(t, func() bool { return string(testkit.ReadFile(t, piPath)) != settingsFixture }, 10*time.Second, "pi's write")
			if err := (&Store{AgentDir: ourDir}).UpdateSettings("", true, []Change{tc.change}, false); err != nil {
				t.Fatal(err)
			}
			if want, got := string(testkit.ReadFile(t, piPath)), string(testkit.ReadFile(t, filepath.Join(ourDir, "settings.json"))); want != got {
				t.Errorf("pi wrote:\n%s\npiweb wrote:\n%s", want, got)
			}
		})
	}
}

// TestSignInProvidersArePis: the providers marked SignIn are exactly pi
// 1.6.0's built-in providers with an account sign-in (auth.oauth in pi-ai's
// builtinProviders(), what `pi auth login` runs), asked of pi's own code.
func TestSignInProvidersArePis(t *testing.T) {
	all := filepath.Join(pitest.PiDir(t), "node_modules", "@earendil-works", "pi-ai", "dist", "providers", "all.js")
	script := `const m = await import(process.argv[1]);
console.log(JSON.stringify(m.builtinProviders().filter((p) => p.auth && p.auth.oauth).map((p) => p.id).sort()));`
	out, err := exec.Command(pitest.Node(t), "--input-type=module", "-e", script, all).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	for _, p := range Providers {
		if p.SignIn {
			got = append(got, p.ID)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("SignIn providers = %q, pi 1.6.0's = %q", got, want)
	}
}
