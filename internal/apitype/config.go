package apitype

import (
	"encoding/json"
	"time"
)

// ConfigView is GET /api/config: pi's global settings, a project's
// (?cwd=) with its trust, the settings piweb edits with pi's defaults, and
// auth.json's credentials, masked.
type ConfigView struct {
	Global  SettingsFile  `json:"global"`
	Project *SettingsFile `json:"project,omitempty"`
	Trust   *ProjectTrust `json:"trust,omitempty"`
	Schema  []Setting     `json:"schema"`
	Auth    AuthFile      `json:"auth"`
	// Providers are pi's built-in providers (pi lists only configured
	// ones' models).
	Providers []Provider `json:"providers"`
	// Custom names the providers models.json declares.
	Custom []string `json:"custom"`
	// LoginCommand is the terminal command that signs in to a provider,
	// followed by its id (pilogin.CommandLine).
	LoginCommand string `json:"loginCommand"`
}

// SettingsChange is PUT /api/config/settings: changes to the global
// settings, or a trusted project's when Cwd is set. ReplaceCorrupt
// replaces a file that does not parse (it is copied aside first).
type SettingsChange struct {
	Cwd            string          `json:"cwd,omitempty"`
	Changes        []SettingChange `json:"changes"`
	ReplaceCorrupt bool            `json:"replaceCorrupt,omitempty"`
}

// SignInAnswer is POST /api/config/signin/{provider}/answer: one line
// written to pi's terminal (the pasted code, or the answer to pi's
// question), followed by Enter.
type SignInAnswer struct {
	Text string `json:"text"`
}

// KeyChange is PUT /api/config/auth/{provider}: the API key to store.
type KeyChange struct {
	Key            string `json:"key"`
	ReplaceCorrupt bool   `json:"replaceCorrupt,omitempty"`
}

// ModelsConfig is PUT /api/models-config: models.json's new content.
type ModelsConfig struct {
	Config json.RawMessage `json:"config"`
}

// ModelTestRequest is POST /api/config/test.
type ModelTestRequest struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// ResourceList is GET /api/config/resources?cwd=DIR: what pi's RPC names
// (skills, prompts, extension commands), what it does not (MCP servers,
// pi packages, extensions, from pi's files; a project's only when pi
// trusts it), and what `pi config` lists with each one's enabled state
// (States; StatesError says why not, as with a pi that predates it).
type ResourceList struct {
	Resources   []Resource      `json:"resources"`
	Installed   []Installed     `json:"installed"`
	States      *ResourceStates `json:"states,omitempty"`
	StatesError string          `json:"statesError,omitempty"`
	// PiwebMCP is the entry that makes this piweb one of pi's MCP
	// servers (absent when the server does not know its executable).
	PiwebMCP *PiwebMCP `json:"piwebMcp,omitempty"`
}

// PiwebMCP is the mcp.json entry Settings offers so that pi sessions can
// search and read every session through `piweb mcp` (decision 0041):
// server Name in the agent dir's mcp.json (Path), set to Config; Added
// says that file has a server of that name or running that command.
type PiwebMCP struct {
	Name   string          `json:"name"`
	Path   string          `json:"path"`
	Config MCPServerConfig `json:"config"`
	Added  bool            `json:"added"`
}

// MCPServerConfig is a stdio server's entry in mcp.json.
type MCPServerConfig struct {
	Command  string   `json:"command"`
	Args     []string `json:"args"`
	Exposure string   `json:"exposure,omitempty"`
}

// AddPiwebMCP is POST /api/config/mcp/piweb: add PiwebMCP's entry to the
// agent dir's mcp.json as `pi mcp add` would; the answer is the installed
// list after, with Cwd's project part as PUT /api/config/mcp answers.
type AddPiwebMCP struct {
	Cwd string `json:"cwd"`
}

// ResourceToggle is PUT /api/config/resources: enable or disable one
// resource `pi config` lists for Cwd (Type and Path as States name it),
// written as pi config writes it. The answer is pi's States after.
//
// With Project set ("inherit", "load" or "unload"), Enabled is ignored
// and the resource gets that override in Cwd's project settings, as `pi
// config --local` sets it (Cwd must be trusted).
type ResourceToggle struct {
	Cwd     string `json:"cwd"`
	Type    string `json:"type"`
	Path    string `json:"path"`
	Enabled bool   `json:"enabled"`
	Project string `json:"project,omitempty"`
}

// MCPToggle is PUT /api/config/mcp: enable or disable MCP server Name in
// the mcp.json of Scope ("user": the agent dir's; "project": Cwd's .pi,
// which pi must trust), as pi's /mcp does; Override (project scope) adds
// a project override of a global server when the project has none, as
// /mcp's "Enable/Disable in this project" does. The answer is the new
// installed list of ResourceList.
type MCPToggle struct {
	Cwd      string `json:"cwd"`
	Scope    string `json:"scope"`
	Name     string `json:"name"`
	Enabled  bool   `json:"enabled"`
	Override bool   `json:"override,omitempty"`
}

// PackageRequest is POST /api/config/packages: run `pi install <source>`
// (Action "install") or `pi remove <source>` (Action "remove") in Cwd,
// with -l when Local (the project's .pi/settings.json). The answer is an
// PackageRun: pi's output and exit code.
type PackageRequest struct {
	Cwd    string `json:"cwd"`
	Action string `json:"action"`
	Source string `json:"source"`
	Local  bool   `json:"local,omitempty"`
}

// TrustRequest is POST /api/trust: trust a folder, or with Session set,
// trust it for that session only.
type TrustRequest struct {
	Cwd     string `json:"cwd"`
	Session string `json:"session"` // "trust for this session only"
}

// PushKey is GET /api/push/key.
type PushKey struct {
	PublicKey string `json:"publicKey"`
}

// PushUnsubscribe is POST /api/push/unsubscribe.
type PushUnsubscribe struct {
	Endpoint string `json:"endpoint"`
}

// ReadRequest is POST /api/attention/read: the sessions to mark read, or
// with All every session of the sidebar's listing (the archive left out)
// with activity after its mark, loaded in the page or not.
type ReadRequest struct {
	IDs []string `json:"ids"`
	All bool     `json:"all,omitempty"`
}

// MuteRequest is POST /api/attention/mute: one session's mute, or every
// session's when ID is empty.
type MuteRequest struct {
	ID    string `json:"id"`
	Muted bool   `json:"muted"`
}

// AttentionAnswer is GET /api/attention and the answer of its POSTs: the
// marks, and how many sessions of the sidebar's listing (the archive left
// out) had activity after their mark when it was answered, so that a page
// holding part of the listing (decision 0045) counts them all.
type AttentionAnswer struct {
	Attention
	Unread int `json:"unread"`
}

// UnreadCount is GET /api/attention?only=unread: the count of
// AttentionAnswer without the marks, for a page that asks again as the
// listing changes (it has the marks, which "attention_state" events keep
// current).
type UnreadCount struct {
	Unread int `json:"unread"`
}

// AttentionState is the index topic's "attention_state" event.
type AttentionState struct {
	Type string `json:"type"` // "attention_state"
	AttentionAnswer
}

// Prefs is GET and PUT /api/prefs: piweb's own preferences, and whether
// serve's --model-titles forces model-made titles on whatever the switch.
type Prefs struct {
	Preferences
	ModelTitlesForced bool `json:"modelTitlesForced"`
}

// PrefsChange is PUT /api/prefs: the preferences to change (absent ones
// stay).
type PrefsChange struct {
	ModelTitles *bool `json:"modelTitles"`
}

// Preferences are piweb's preferences. The zero value is every default.
type Preferences struct {
	// ModelTitles has a new session's first-line name replaced by a
	// title pi's default model writes (one short extra request). Off by
	// default.
	ModelTitles bool `json:"modelTitles"`
}

// Attention is the user's marks, as GET /api/attention answers them. A
// session is unread when its last activity is newer than both its read
// mark and Since, the moment the marks began (so that every session that
// existed before is read). A muted session, or any session under the
// global mute, raises no alert on any device: no toast, sound or system
// notification in a page, and no Web Push.
type Attention struct {
	// Since is when the marks began: activity before it counts as read.
	Since time.Time `json:"since"`
	// Read maps a session's API id to when the user last saw it.
	Read map[string]time.Time `json:"read"`
	// Muted are the ids of the sessions muted one by one, sorted.
	Muted []string `json:"muted"`
	// GlobalMute silences every session.
	GlobalMute bool `json:"globalMute"`
	// Rev counts the changes: two changes made at once may reach a page
	// (each answer, each event) in either order, and it keeps the state
	// of the highest Rev it has.
	Rev int64 `json:"rev"`
}

// PushSubscription is a browser's PushSubscription.toJSON().
type PushSubscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
}
