package corpus

import "math/rand/v2"

// words is the vocabulary of the generated prose; frequent words first, so
// that picking with a skewed index gives a Zipf-like distribution and search
// benchmarks have both common and rare terms.
var words = []string{
	"the", "to", "function", "file", "test", "error", "and", "we", "a", "in",
	"value", "return", "is", "of", "config", "this", "it", "should", "check", "use",
	"handler", "request", "server", "client", "build", "module", "package", "import", "type", "struct",
	"field", "method", "interface", "string", "number", "array", "object", "null", "undefined", "promise",
	"async", "await", "callback", "event", "stream", "buffer", "socket", "timeout", "retry", "cache",
	"database", "query", "index", "schema", "migration", "table", "column", "row", "transaction", "lock",
	"thread", "goroutine", "channel", "mutex", "context", "cancel", "deadline", "signal", "process", "exit",
	"parser", "lexer", "token", "syntax", "tree", "node", "branch", "leaf", "root", "path",
	"directory", "folder", "session", "agent", "model", "prompt", "reply", "message", "assistant", "user",
	"refactor", "rename", "extract", "inline", "optimize", "profile", "benchmark", "latency", "throughput", "memory",
	"kubernetes", "docker", "container", "deploy", "release", "version", "semver", "changelog", "commit", "merge",
	"rebase", "cherry", "bisect", "blame", "diff", "patch", "hunk", "conflict", "resolve", "upstream",
	"frobnicate", "quux", "zephyr", "quokka", "marmalade", "obsidian", "tessellate", "vortex", "kaleidoscope", "xylophone",
}

// rareWord returns a term that occurs in few sessions: selective searches
// look for these.
func rareWord(r *rand.Rand) string {
	return "zq" + string(rune('a'+r.IntN(26))) + string(rune('a'+r.IntN(26))) + string(rune('a'+r.IntN(26)))
}

// word picks a word with a skewed distribution.
func word(r *rand.Rand) string {
	f := r.Float64()
	return words[int(f*f*f*float64(len(words)))]
}

// sentence appends n words of prose to b, with a rare term now and then.
func sentence(b []byte, r *rand.Rand, n int) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, ' ')
		}
		if r.IntN(400) == 0 {
			b = append(b, rareWord(r)...)
			continue
		}
		b = append(b, word(r)...)
	}
	return append(b, '.')
}

// prose returns about n bytes of sentences.
func prose(r *rand.Rand, n int) string {
	b := make([]byte, 0, n+64)
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = sentence(b, r, 5+r.IntN(15))
	}
	return string(b)
}

// codeText returns about n bytes of source-like text for tool results.
func codeText(r *rand.Rand, n int) string {
	b := make([]byte, 0, n+80)
	for len(b) < n {
		indent := r.IntN(4)
		for range indent {
			b = append(b, '\t')
		}
		switch r.IntN(4) {
		case 0:
			b = append(b, "func "...)
			b = append(b, word(r)...)
			b = append(b, "(ctx context.Context) error {"...)
		case 1:
			b = append(b, "return "...)
			b = append(b, word(r)...)
			b = append(b, ", nil"...)
		case 2:
			b = append(b, "// "...)
			b = sentence(b, r, 4+r.IntN(8))
		default:
			b = append(b, word(r)...)
			b = append(b, " := \""...)
			b = append(b, word(r)...)
			b = append(b, "\" <= x && y > 0"...)
		}
		b = append(b, '\n')
	}
	return string(b)
}
