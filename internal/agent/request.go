package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

var toolPresets = map[string]bool{"none": true, "read-only": true, "default": true, "all": true}

// thinkingLevelNames are every level pi 1.x accepts.
var thinkingLevelNames = []string{"off", "minimal", "low", "medium", "high", "xhigh"}

// ValidateCreate checks a create request before pi starts: an absolute,
// existing cwd, a message or an image, provider/modelId, a known thinking
// level and a tools preset or list. Its error is a *RequestError.
func ValidateCreate(req *CreateRequest) error {
	if req.Cwd == "" || !filepath.IsAbs(req.Cwd) {
		return badRequest("cwd must be an absolute path")
	}
	if fi, err := os.Stat(req.Cwd); err != nil || !fi.IsDir() {
		return badRequest("cwd is not an existing directory")
	}
	if strings.TrimSpace(req.Message) == "" && len(req.Images) == 0 {
		return badRequest("message is required")
	}
	if req.Model != "" && !strings.Contains(req.Model, "/") {
		return badRequest("model must be provider/modelId")
	}
	if req.ThinkingLevel != "" && !slices.Contains(thinkingLevelNames, req.ThinkingLevel) {
		return badRequest("unknown thinkingLevel")
	}
	if len(req.Tools) > 0 {
		var preset string
		var list []string
		switch {
		case json.Unmarshal(req.Tools, &preset) == nil:
			if !toolPresets[preset] {
				return badRequest("tools must be none, read-only, default, all or a list of names")
			}
		case json.Unmarshal(req.Tools, &list) == nil:
		default:
			return badRequest("tools must be a preset name or a list of names")
		}
	}
	return nil
}

// promptTypes are the commands that send the user's message: the leaf the
// page showed goes with them, so a worker whose file changed outside piweb
// reloads it when the page shows the file as it is now.
var promptTypes = map[string]bool{"prompt": true, "steer": true, "follow_up": true}

// IsPrompt reports whether a command type sends the user's message.
func IsPrompt(typ string) bool { return promptTypes[typ] }

// commandTypes are the commands the API relays, pi's and piweb's own.
var commandTypes = map[string]bool{
	"prompt": true, "steer": true, "follow_up": true, "abort": true, "compact": true,
	"set_model": true, "set_thinking_level": true, "cycle_model": true,
	"cycle_thinking_level": true, "get_state": true, "get_messages": true, "get_session_stats": true,
	"get_commands": true, "get_available_models": true, "get_fork_messages": true,
	"get_last_assistant_text": true, "bash": true, "abort_bash": true, "abort_retry": true,
	"set_auto_compaction": true, "set_auto_retry": true, "set_steering_mode": true,
	"set_follow_up_mode": true, "set_session_name": true, "export_html": true,
	"navigate": true, "ui_response": true, "abort_compaction": true, "reload": true,
	"clear_queue": true, "get_available_thinking_levels": true,
}

// Relayed reports whether the API relays commands of type typ.
func Relayed(typ string) bool { return commandTypes[typ] }
