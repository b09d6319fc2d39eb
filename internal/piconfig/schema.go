package piconfig

import (
	"encoding/json"
	"math"
	"slices"

	"piweb/internal/apitype"
	"piweb/internal/jsjson"
)

// Setting describes one setting piweb edits: its key (Sub for a member of a
// nested object), its kind, the values it accepts and pi 1.6.0's default
// (SETTINGS_DEFAULTS in core/settings-defaults.js; absent when pi has none)
// (apitype.Setting, where the API's shapes are defined).
type Setting = apitype.Setting

// ThinkingLevels are pi's THINKING_LEVEL_OPTIONS (core/defaults.js).
var ThinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

var queueModes = []string{"all", "one-at-a-time"}

// Settings lists the settings piweb edits, in the order the page shows
// them. Keys not listed here are kept in the file but not editable.
var Settings = []Setting{
	{Key: "defaultProvider", Kind: "string", Doc: "provider of the model new sessions start with"},
	{Key: "defaultModel", Kind: "string", Doc: "model new sessions start with"},
	{Key: "defaultThinkingLevel", Kind: "enum", Options: ThinkingLevels, Default: raw(`"medium"`), Doc: "thinking level new sessions start with"},
	{Key: "enabledModels", Kind: "strings", Doc: "models the pickers offer (patterns such as provider/id); all when unset"},
	{Key: "steeringMode", Kind: "enum", Options: queueModes, Default: raw(`"one-at-a-time"`), Doc: "steering messages sent during a run: one per turn, or all at once"},
	{Key: "followUpMode", Kind: "enum", Options: queueModes, Default: raw(`"one-at-a-time"`), Doc: "follow-up messages queued for after a run: one per turn, or all at once"},
	{Key: "compaction", Sub: "enabled", Kind: "bool", Default: raw(`true`), Doc: "compact the context automatically when it nears the model's window"},
	{Key: "compaction", Sub: "reserveTokens", Kind: "int", Default: raw(`16384`), Doc: "tokens kept free for the answer before compacting"},
	{Key: "compaction", Sub: "keepRecentTokens", Kind: "int", Default: raw(`20000`), Doc: "recent tokens kept verbatim by a compaction"},
	{Key: "retry", Sub: "enabled", Kind: "bool", Default: raw(`true`), Doc: "retry a failed request automatically"},
	{Key: "retry", Sub: "maxRetries", Kind: "int", Default: raw(`3`), Doc: "retries before giving up"},
	{Key: "retry", Sub: "baseDelayMs", Kind: "int", Default: raw(`2000`), Doc: "first retry delay in ms (doubles each time)"},
	{Key: "retry", Sub: "maxAgentDelayMs", Kind: "int", Default: raw(`60000`), Doc: "longest delay between retries in ms"},
	{Key: "hideThinkingBlock", Kind: "bool", Default: raw(`false`), Doc: "hide thinking blocks"},
	{Key: "enableSkillCommands", Kind: "bool", Default: raw(`true`), Doc: "offer skills as /skill:name commands"},
	{Key: "defaultProjectTrust", Kind: "enum", Options: []string{"ask", "always", "never"}, Default: raw(`"ask"`), Doc: "trust for projects with resources (RPC mode treats ask as no)"},
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// lookupSetting finds the Setting a change names.
func lookupSetting(key, sub string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(st Setting) bool { return st.Key == key && st.Sub == sub })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// ValidateChange checks that a change names a setting of Settings and
// that its value has the setting's kind (a nil value, removal, always
// does).
func ValidateChange(c Change) error {
	st, known := lookupSetting(c.Key, c.Sub)
	if !known {
		return invalidf("%s is not a setting piweb edits", settingName(c.Key, c.Sub))
	}
	if len(c.Value) == 0 || string(c.Value) == "null" {
		return nil
	}
	v, err := jsjson.Parse(c.Value)
	if err != nil {
		return invalidf("%s: the value is not valid JSON", settingName(st.Key, st.Sub))
	}
	return checkValue(st, v)
}

// settingName is a setting's name in messages: key, or key.sub for a
// member of an object setting.
func settingName(key, sub string) string {
	if sub != "" {
		return key + "." + sub
	}
	return key
}

func checkValue(st Setting, v jsjson.Value) error {
	switch st.Kind {
	case "bool":
		if v.Kind() != jsjson.BoolKind {
			return invalidf("%s must be true or false", settingName(st.Key, st.Sub))
		}
	case "int":
		f := v.Float()
		if v.Kind() != jsjson.NumberKind || f < 0 || f != math.Trunc(f) || f > 1<<40 {
			return invalidf("%s must be a whole number, 0 or more", settingName(st.Key, st.Sub))
		}
	case "enum":
		if v.Kind() != jsjson.StringKind || !slices.Contains(st.Options, v.Str()) {
			return invalidf("%s must be one of %v", settingName(st.Key, st.Sub), st.Options)
		}
	case "string":
		if v.Kind() != jsjson.StringKind || v.Str() == "" || len(v.Str()) > 1000 {
			return invalidf("%s must be a non-empty string", settingName(st.Key, st.Sub))
		}
	case "strings":
		return checkStrings(st, v)
	}
	return nil
}

func checkStrings(st Setting, v jsjson.Value) error {
	if v.Kind() != jsjson.ArrayKind || v.Len() > 10000 {
		return invalidf("%s must be a list of strings", settingName(st.Key, st.Sub))
	}
	for i := range v.Len() {
		if e := v.Index(i); e.Kind() != jsjson.StringKind || e.Str() == "" {
			return invalidf("%s must be a list of non-empty strings", settingName(st.Key, st.Sub))
		}
	}
	return nil
}
