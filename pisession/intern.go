package pisession

// The keys and short values pi writes on every line (member names, entry
// types, roles) are interned: a parse of a file of small entries would
// otherwise allocate a string for each of them, ten or more a line.

// internNames are the strings interned; a name whose slot another name
// took first is simply not interned.
var internNames = []string{
	// Members of entries and messages.
	"type", "id", "parentId", "timestamp", "message", "role", "content", "version", "cwd",
	"parentSession", "provider", "modelId", "model", "api", "thinkingLevel", "usage", "stopReason",
	"responseId", "responseModel", "errorMessage", "durationMs", "toolCallId", "toolName", "isError",
	"details", "summary", "firstKeptEntryId", "tokensBefore", "fromHook", "fromId", "customType",
	"data", "display", "targetId", "label", "name", "command", "output", "exitCode", "cancelled",
	"truncated", "fullOutputPath", "excludeFromContext", "sections", "toolsAdded", "toolsRemoved",
	"nestedCalls", "deferred", "kind", "note", "replacement", "systemMessage", "text", "thinking",
	"arguments", "input", "cacheRead", "cacheWrite", "totalTokens", "cost", "total",
	// Entry types and roles.
	"session", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom",
	"custom_message", "session_info", "context_edit", "user", "assistant", "toolResult",
	"bashExecution", "system", "toolCall", "image",
}

const internSlots = 512

var internTable = func() (t [internSlots]string) {
	for _, n := range internNames {
		if h := internHash([]byte(n)); t[h] == "" {
			t[h] = n
		}
	}
	return t
}()

func internHash(k []byte) int {
	n := len(k)
	return (n*37 + int(k[0])*7 + int(k[n-1])*3 + int(k[n/2])) & (internSlots - 1)
}

// intern returns string(k), without allocating when k is one of
// internNames.
func intern(k []byte) string {
	if len(k) == 0 {
		return ""
	}
	if s := internTable[internHash(k)]; s == string(k) {
		return s
	}
	return string(k)
}
