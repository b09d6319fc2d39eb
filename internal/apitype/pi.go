package apitype

import "encoding/json"

// The shapes of pi's configuration as the API shows it: settings files,
// the settings piweb edits, credentials (masked), providers, what pi
// loads and whether it trusts a project. piconfig and agent name these
// types (aliases).

// PiStatus is what the web app is told about pi (GET /api/status).
type PiStatus struct {
	Found   bool    `json:"found"`
	Path    string  `json:"path,omitempty"`
	Version string  `json:"version,omitempty"`
	Error   *string `json:"error"`
	Install string  `json:"install"`
}

// ProjectTrust says whether pi loads a folder's project resources.
type ProjectTrust struct {
	// Cwd is the folder, as pi names it (absolute, symlinks resolved).
	Cwd string `json:"cwd"`
	// Resources are the trust-requiring resources found: entries of
	// <cwd>/.pi, and .agents/skills in cwd or an ancestor (absolute paths).
	Resources []string `json:"resources"`
	// Decision is the nearest saved decision in trust.json (null if none),
	// and DecidedFor the folder it was saved for (cwd or an ancestor).
	Decision   *bool  `json:"decision"`
	DecidedFor string `json:"decidedFor,omitempty"`
	// Default is settings.json's defaultProjectTrust: ask, always or never.
	Default string `json:"default"`
	// Trusted is what pi decides in RPC mode (where "ask" means no).
	Trusted bool `json:"trusted"`
	// Skipped is true when the folder has resources pi does not load.
	Skipped bool `json:"skipped"`
	// Missing is true when the folder does not exist (as a directory).
	Missing bool `json:"missing,omitempty"`
	// Approved is true when the session asked about runs its pi with
	// --approve ("trust for this session only"): pi loads the resources
	// for it, so Trusted is true and Skipped false, whatever trust.json says.
	Approved bool `json:"approved,omitempty"`
}

// Resource is one skill, prompt template or extension command pi loads
// for a folder (RPC get_commands), with where it comes from.
type Resource struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Kind is pi's source: "skill", "prompt" or "extension".
	Kind string `json:"kind"`
	// Path is the file it was loaded from; Scope is "user" (the agent
	// dir), "project" (the folder's .pi) or "temporary"; Source and
	// Origin say how (a local file, a pi package…).
	Path   string `json:"path,omitempty"`
	Scope  string `json:"scope,omitempty"`
	Source string `json:"source,omitempty"`
	Origin string `json:"origin,omitempty"`
}

// ResourceState is one resource as pi's `pi config` lists it (pi's
// DefaultPackageManager.resolve): an extension, skill, prompt template or
// theme, whether pi loads it, and where it comes from.
type ResourceState struct {
	// Type is pi's settings key for it: "extensions", "skills",
	// "prompts" or "themes".
	Type string `json:"type"`
	// Path is the file (a skill's SKILL.md), or "builtin:<name>" for a
	// built-in extension.
	Path    string `json:"path"`
	Enabled bool   `json:"enabled"`
	// Scope is "user" or "project"; Origin "top-level" or "package";
	// Source "auto" (found in a resource folder), "local" (named in
	// settings), "builtin", or the package's source as settings name it;
	// BaseDir what patterns for it are relative to.
	Scope   string `json:"scope"`
	Origin  string `json:"origin"`
	Source  string `json:"source"`
	BaseDir string `json:"baseDir,omitempty"`
	// Override is, in a trusted project's view, the project's override
	// of it as `pi config --local` shows it ("inherit", "load",
	// "unload"), and Inherited whether the global view lists it too;
	// piweb fills them from the project's settings (ops).
	Override  string `json:"override,omitempty"`
	Inherited bool   `json:"inherited,omitempty"`
}

// ResourceStates are pi's two views: Global is what `pi config` shows
// for the agent dir alone; Project, only for a trusted project, what pi
// loads there (project settings applied).
type ResourceStates struct {
	Global  []ResourceState `json:"global"`
	Project []ResourceState `json:"project,omitempty"`
	// InstallFailures are pi's warnings about packages it could not load.
	InstallFailures []string `json:"installFailures,omitempty"`
}

// SettingsFile is one settings.json as read.
type SettingsFile struct {
	// Path is the file's path; Exists is false when there is none yet.
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// Settings is the file's object as JSON (after pi's migrations, so
	// old keys show under their new names), {} when absent or corrupt.
	Settings json.RawMessage `json:"settings"`
	// Error says why the file is unusable (pi then ignores it, and piweb
	// refuses to write it unless asked to replace it).
	Error string `json:"error,omitempty"`
}

// Setting describes one setting piweb edits: its key (Sub for a member of
// a nested object), its kind, the values it accepts and pi 1.6.0's default
// (SETTINGS_DEFAULTS in core/settings-defaults.js; absent when pi has none).
type Setting struct {
	Key     string          `json:"key"`
	Sub     string          `json:"sub,omitempty"`
	Kind    string          `json:"kind"` // "bool", "int", "enum", "string", "strings"
	Options []string        `json:"options,omitempty"`
	Default json.RawMessage `json:"default,omitempty"`
	Doc     string          `json:"doc"`
}

// AuthFile is auth.json as the browser may see it.
type AuthFile struct {
	Path        string       `json:"path"`
	Exists      bool         `json:"exists"`
	Credentials []Credential `json:"credentials"`
	Error       string       `json:"error,omitempty"`
}

// Credential is one provider's entry in auth.json as the browser may see
// it: never the key itself.
type Credential struct {
	Provider string `json:"provider"`
	// Type is pi's credential type: "api_key" or "oauth".
	Type string `json:"type"`
	// Masked is the key with all but its last 4 characters hidden, or a
	// note for a key pi resolves elsewhere (an environment variable's
	// name, a "!command"): those are not secret and are shown whole.
	Masked string `json:"masked,omitempty"`
}

// Provider is a provider pi 1.6.0 has built in: its id, the environment
// variables pi reads its API key from, and whether pi offers an account
// sign-in for it (`pi auth login <id>`: the provider has pi-ai's
// auth.oauth; TestSignInProvidersArePis checks the list against pi).
type Provider struct {
	ID     string   `json:"id"`
	Env    []string `json:"env,omitempty"`
	SignIn bool     `json:"signIn,omitempty"`
	// Ambient is set for providers configured outside pi (cloud
	// credentials), which take no API key in auth.json.
	Ambient bool `json:"ambient,omitempty"`
}

// SettingChange sets (or, with a nil Value, removes) one setting: a top-level key,
// or with Sub the member of a nested object such as compaction.enabled.
type SettingChange struct {
	Key   string          `json:"key"`
	Sub   string          `json:"sub,omitempty"`
	Value json.RawMessage `json:"value"`
}

// Installed is something pi loads that RPC get_commands does not name: an
// MCP server (mcp.json's mcpServers), a pi package (settings.json's
// packages) or an extension (a file or folder in an extensions folder, or
// settings.json's extensions).
type Installed struct {
	Name string `json:"name"`
	// Kind is "mcp", "package" or "extension".
	Kind string `json:"kind"`
	// Scope is "user" (the agent dir) or "project" (the folder's .pi).
	Scope string `json:"scope"`
	// Path is the file that names it; Detail how it runs (a command, a
	// URL, a package source).
	Path   string `json:"path"`
	Detail string `json:"detail,omitempty"`
	// Resolved is a local package source made absolute (pi resolves it
	// from the folder of the settings file naming it): the source that
	// `pi remove` matches from any folder.
	Resolved string `json:"resolved,omitempty"`
	// Disabled is an MCP server its entry turns off ("enabled": false);
	// Override an MCP entry of a project that only overrides the global
	// server of that name (no command, url or type).
	Disabled bool `json:"disabled,omitempty"`
	Override bool `json:"override,omitempty"`
}

// ModelTest is the outcome of TestModel.
type ModelTest struct {
	// OK is true when the model answered without an error.
	OK bool `json:"ok"`
	// Reply is the start of the model's answer; Error is pi's error (or
	// "no answer within …" after the timeout).
	Reply string `json:"reply,omitempty"`
	Error string `json:"error,omitempty"`
	// Ms is how long the request took, start of pi excluded.
	Ms int64 `json:"ms"`
}

// PackageRun is one `pi install` or `pi remove`: the command as a user
// would type it, what pi printed (stdout and stderr, as they came, the
// last 64 KiB), and how it ended.
type PackageRun struct {
	Command  string `json:"command"`
	Output   string `json:"output"`
	ExitCode int    `json:"exitCode"`
	TimedOut bool   `json:"timedOut,omitempty"`
}

// CreateRequest is the body of POST /api/sessions: a new session in Cwd
// with its first message and the user's choices for it.
type CreateRequest struct {
	Cwd           string            `json:"cwd"`
	Message       string            `json:"message"`
	Model         string            `json:"model,omitempty"`
	ThinkingLevel string            `json:"thinkingLevel,omitempty"`
	Tools         json.RawMessage   `json:"tools,omitempty"`
	Images        []json.RawMessage `json:"images,omitempty"`
	// Approve starts the session's pi with --approve: it loads the folder's
	// project resources for this session only, without trust.json.
	Approve bool `json:"approve,omitempty"`
}

// ModelList is GET /api/models: pi's available models (or, without pi,
// what models.json declares), settings.json's default model and its
// enabledModels patterns (null: every model is offered).
type ModelList struct {
	Models        []json.RawMessage `json:"models"`
	Default       *ModelRef         `json:"default"`
	EnabledModels []string          `json:"enabledModels"`
}

// ModelRef names a model as pi's settings do.
type ModelRef struct {
	Provider string `json:"provider"`
	ModelID  string `json:"modelId"`
}

// ModelsFile is models.json as the browser may see it: literal apiKeys
// replaced by MaskedKey.
type ModelsFile struct {
	Path   string          `json:"-"`
	Exists bool            `json:"exists"`
	Config json.RawMessage `json:"config"`
	Error  string          `json:"error,omitempty"`
}

// SignInState is one provider's sign-in as the page shows it. Seq grows with
// every change of any sign-in, so a reader waits for a state newer than
// the one it has (Manager.Wait).
type SignInState struct {
	Provider string `json:"provider"`
	Seq      uint64 `json:"seq"`
	Running  bool   `json:"running"`
	// URL is the page pi asks the user to open (http or https only), and
	// UserCode the code to enter there for a device-code sign-in.
	URL      string `json:"url,omitempty"`
	UserCode string `json:"userCode,omitempty"`
	// Prompt is the question pi waits on for an answer, if any.
	Prompt string `json:"prompt,omitempty"`
	// Lines are what pi printed, as text, answers masked.
	Lines []string `json:"lines"`
	// Result is set once pi ended: SignedIn, Failed, Cancelled or TimedOut;
	// Error is then pi's own last words (e.g. "Failed to log in to
	// Anthropic: fetch failed").
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}
