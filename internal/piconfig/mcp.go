package piconfig

import (
	"bytes"
	"path/filepath"
	"regexp"

	"piweb/internal/jsjson"
)

// MCPPath is the mcp.json of a scope: the agent dir's (cwd "") or a
// project's .pi.
func (s *Store) MCPPath(cwd string) string {
	if cwd == "" {
		return filepath.Join(s.AgentDir, "mcp.json")
	}
	return filepath.Join(cwd, ".pi", "mcp.json")
}

// ErrNoMCPServer is a server the scope's mcp.json does not define.
var ErrNoMCPServer = invalidf("that mcp.json does not define this MCP server")

// SetMCPEnabled enables or disables MCP server name in the mcp.json of
// its scope (the agent dir's with cwd "", else the trusted project's), as
// pi 1.6.0's /mcp does (updateMcpServerConfig): a server entry that pi
// loads as is loses "enabled" when enabled and gets "enabled": false when
// disabled; a project override (no command, url or type) keeps the value
// either way. Other content is kept and the file is rewritten as pi
// writes it, JSON.stringify with the file's own indentation (two spaces
// when it has none) and a final newline; atomically, with a backup.
//
// With override (pi's "Enable/Disable in this project" of a global server,
// project files only), a file without the server gets an empty override
// entry for it first (and the file itself when there is none).
func (s *Store) SetMCPEnabled(cwd string, trusted bool, name string, enabled, override bool) error {
	if cwd != "" && !trusted {
		return ErrUntrusted
	}
	if override && cwd == "" {
		return invalidf("an MCP override belongs in a project's mcp.json")
	}
	path := s.MCPPath(cwd)
	return s.update(path, path, 0o644, false, func(d *doc) ([]byte, error) {
		servers := d.obj.Value().Get("mcpServers")
		server := servers.Get(name)
		if server.Kind() == jsjson.UndefinedKind && override {
			var empty jsjson.Object
			server = empty.Value()
		}
		if server.Kind() != jsjson.ObjectKind {
			return nil, ErrNoMCPServer
		}
		so := server.Object()
		override := server.Get("command").Kind() == jsjson.UndefinedKind && server.Get("url").Kind() == jsjson.UndefinedKind &&
			server.Get("type").Kind() == jsjson.UndefinedKind
		if enabled && !override {
			so.Delete("enabled")
		} else {
			so.Set("enabled", jsjson.Bool(enabled))
		}
		return d.withServer(servers, name, so.Value()), nil
	})
}

// withServer is the file d with servers (its mcpServers) holding server
// under name, written as pi writes mcp.json: indented as the file was
// (two spaces when it has none), with a final newline.
func (d *doc) withServer(servers jsjson.Value, name string, server jsjson.Value) []byte {
	sv := servers.Object()
	sv.Set(name, server)
	d.obj.Set("mcpServers", sv.Value())
	out := appendIndented(nil, d.obj.Value(), "\n", fileIndent(bytes.TrimPrefix(d.raw, bom)))
	return append(out, '\n')
}

var indentRE = regexp.MustCompile(`(?m)^([ \t]+)\S`)

// fileIndent is pi's `/^([ \t]+)\S/m.exec(text)?.[1] || "  "`.
func fileIndent(text []byte) string {
	if m := indentRE.FindSubmatch(text); m != nil {
		return string(m[1])
	}
	return "  "
}

// AddMCPServer sets MCP server name in the agent dir's mcp.json to a
// stdio server running command with args and the given exposure ("" for
// pi's default), as pi 1.6.0's `pi mcp add` does (addMcpServerConfig): an
// entry of that name is replaced whole, a missing file is made, other
// content is kept, and the file is written as SetMCPEnabled writes it.
func (s *Store) AddMCPServer(name, command string, args []string, exposure string) error {
	path := s.MCPPath("")
	return s.update(path, path, 0o644, false, func(d *doc) ([]byte, error) {
		servers := d.obj.Value().Get("mcpServers")
		if k := servers.Kind(); k != jsjson.UndefinedKind && k != jsjson.ObjectKind {
			return nil, invalidf("mcp.json's mcpServers is not an object")
		}
		var entry jsjson.Object
		entry.Set("command", jsjson.String(command))
		var as []jsjson.Value
		for _, a := range args {
			as = append(as, jsjson.String(a))
		}
		entry.Set("args", jsjson.Array(as...))
		if exposure != "" {
			entry.Set("exposure", jsjson.String(exposure))
		}
		return d.withServer(servers, name, entry.Value()), nil
	})
}
