package piconfig

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"piweb/internal/apitype"
)

// Installed is something pi loads that RPC get_commands does not name: an
// MCP server (mcp.json's mcpServers), a pi package (settings.json's
// packages) or an extension (a file or folder in an extensions folder, or
// settings.json's extensions) (apitype.Installed, where the API's shapes
// are defined).
type Installed = apitype.Installed

// Installed lists the MCP servers, pi packages and extensions of the
// agent dir, and with cwd set those of the project too (the caller asks
// only for a project pi trusts: pi skips an untrusted one's). Files that
// are missing or do not parse add nothing. Sorted by kind, scope, name.
func (s *Store) Installed(cwd string) []Installed {
	var out []Installed
	scopes := [][2]string{{"user", s.AgentDir}}
	if cwd != "" {
		scopes = append(scopes, [2]string{"project", filepath.Join(cwd, ".pi")})
	}
	for _, sc := range scopes {
		scope, dir := sc[0], sc[1]
		out = append(out, mcpServers(filepath.Join(dir, "mcp.json"), scope)...)
		settings := filepath.Join(dir, "settings.json")
		if scope == "user" {
			settings = s.SettingsPath()
		}
		out = append(out, listed(settings, scope)...)
		out = append(out, extensionFiles(filepath.Join(dir, "extensions"), scope)...)
	}
	slices.SortStableFunc(out, func(a, b Installed) int {
		return strings.Compare(a.Kind+"\x00"+a.Scope+"\x00"+a.Name, b.Kind+"\x00"+b.Scope+"\x00"+b.Name)
	})
	return out
}

// mcpServers reads mcp.json's servers.
func mcpServers(path, scope string) []Installed {
	var f struct {
		Servers map[string]struct {
			Command *string  `json:"command"`
			Args    []string `json:"args"`
			URL     *string  `json:"url"`
			Type    *string  `json:"type"`
			Enabled *bool    `json:"enabled"`
		} `json:"mcpServers"`
	}
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &f) != nil {
		return nil
	}
	var out []Installed
	for name, sv := range f.Servers {
		it := Installed{Name: name, Kind: "mcp", Scope: scope, Path: path,
			Disabled: sv.Enabled != nil && !*sv.Enabled, Override: sv.Command == nil && sv.URL == nil && sv.Type == nil}
		switch {
		case sv.Command != nil:
			it.Detail = strings.Join(append([]string{*sv.Command}, sv.Args...), " ")
		case sv.URL != nil:
			it.Detail = *sv.URL
		}
		out = append(out, it)
	}
	return out
}

// listed reads settings.json's packages and extensions: each a source
// string, or for packages an object with a source.
func listed(path, scope string) []Installed {
	var f struct {
		Packages   []json.RawMessage `json:"packages"`
		Extensions []string          `json:"extensions"`
	}
	if b, err := os.ReadFile(path); err != nil || json.Unmarshal(b, &f) != nil {
		return nil
	}
	var out []Installed
	for _, p := range f.Packages {
		var src string
		if json.Unmarshal(p, &src) != nil {
			var obj struct {
				Source string `json:"source"`
			}
			json.Unmarshal(p, &obj)
			src = obj.Source
		}
		if src != "" {
			it := Installed{Name: packageName(src), Kind: "package", Scope: scope, Path: path, Detail: src}
			if isLocalSource(src) {
				it.Resolved = resolveFrom(filepath.Dir(path), src)
			}
			out = append(out, it)
		}
	}
	for _, e := range f.Extensions {
		if e != "" {
			out = append(out, Installed{Name: e, Kind: "extension", Scope: scope, Path: path})
		}
	}
	return out
}

// packageName is a package source without its npm: or git: prefix.
func packageName(src string) string {
	for _, p := range []string{"npm:", "git:"} {
		if rest, found := strings.CutPrefix(src, p); found {
			return rest
		}
	}
	return src
}

// extensionFiles lists an extensions folder: .ts and .js files, and
// folders (an extension with its own files).
func extensionFiles(dir, scope string) []Installed {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Installed
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || (!e.IsDir() && !strings.HasSuffix(name, ".ts") && !strings.HasSuffix(name, ".js")) {
			continue
		}
		out = append(out, Installed{Name: strings.TrimSuffix(strings.TrimSuffix(name, ".ts"), ".js"), Kind: "extension", Scope: scope, Path: filepath.Join(dir, name)})
	}
	return out
}
