package fakellm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Names under which pi sees the fake. Select the model with
// "--model fake/fake-model" or, after WriteSettings, with no flag at all.
const (
	Provider  = "fake"
	ModelID   = "fake-model"   // non-reasoning, text only
	ThinkerID = "fake-thinker" // reasoning, text and images
	APIKey    = "fake-key"     // sent as "Authorization: Bearer fake-key"
)

// ModelsJSON returns the models.json document declaring the fake provider
// at baseURL (which must include /v1). Costs are non-zero so pi's cost
// figures are exercised: fake-model costs $1/$2 per million input/output
// tokens, fake-thinker $3/$15.
//
// apiKey is a literal: pi first looks it up as an environment variable
// name, so it must not collide with one (no variable is called fake-key).
// supportsDeveloperRole is false so the system prompt always arrives as
// role "system"; supportsReasoningEffort is true so the thinking level
// reaches the server as reasoning_effort.
func ModelsJSON(baseURL string) map[string]any {
	model := func(id, name string, reasoning bool, input []string, ctx, in, out float64) map[string]any {
		return map[string]any{
			"id": id, "name": name, "reasoning": reasoning, "input": input,
			"contextWindow": ctx, "maxTokens": 4096,
			"cost": map[string]any{"input": in, "output": out, "cacheRead": in / 10, "cacheWrite": in * 1.25},
		}
	}
	return map[string]any{"providers": map[string]any{
		Provider: map[string]any{
			"baseUrl": baseURL,
			"api":     "openai-completions",
			"apiKey":  APIKey,
			"compat":  map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": true},
			"models": []any{
				model(ModelID, "Fake Model (demo)", false, []string{"text"}, 128000, 1, 2),
				model(ThinkerID, "Fake Thinker (demo)", true, []string{"text", "image"}, 64000, 3, 15),
			},
		},
	}}
}

// WriteModelsJSON writes agentDir/models.json (creating agentDir) so that
// pi started with PI_CODING_AGENT_DIR=agentDir talks to the fake at baseURL.
func WriteModelsJSON(agentDir, baseURL string) error {
	return writeJSONFile(filepath.Join(agentDir, "models.json"), ModelsJSON(baseURL))
}

// WriteSettings merges test-friendly defaults into agentDir/settings.json:
// the fake model as default, fast agent-level retries (2 attempts, 50 ms
// base delay) and no OpenAI SDK retries, so each scripted error is seen by
// pi exactly once. Other keys already in the file are kept.
func WriteSettings(agentDir string) error {
	return editSettings(agentDir, func(settings map[string]any) {
		settings["defaultProvider"] = Provider
		settings["defaultModel"] = ModelID
		settings["retry"] = map[string]any{
			"enabled": true, "maxRetries": 2, "baseDelayMs": 50,
			"provider": map[string]any{"maxRetries": 0},
		}
	})
}

// KeepRecent sets pi's compaction.keepRecentTokens in agentDir's
// settings.json (other keys kept). pi >= 0.80 compacts only what lies
// beyond it (20,000 tokens by default) and refuses "Nothing to compact"
// otherwise, so tests that compact a short session set it low.
func KeepRecent(agentDir string, tokens int) error {
	return editSettings(agentDir, func(settings map[string]any) {
		c, _ := settings["compaction"].(map[string]any)
		if c == nil {
			c = map[string]any{}
		}
		c["keepRecentTokens"] = tokens
		settings["compaction"] = c
	})
}

// editSettings applies edit to agentDir/settings.json (an empty object if
// it does not exist) and writes it back atomically.
func editSettings(agentDir string, edit func(map[string]any)) error {
	path := filepath.Join(agentDir, "settings.json")
	settings := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("read settings: %w", err)
	default:
		if err := json.Unmarshal(b, &settings); err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
	}
	edit(settings)
	return writeJSONFile(path, settings)
}

// SetupAgentDir writes both models.json and settings.json.
func SetupAgentDir(agentDir, baseURL string) error {
	if err := WriteModelsJSON(agentDir, baseURL); err != nil {
		return err
	}
	return WriteSettings(agentDir)
}

// writeJSONFile writes v atomically (temp file, fsync, rename).
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create agent dir: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".fakellm-*.json")
	if err != nil {
		return fmt.Errorf("create temp for %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	return nil
}
