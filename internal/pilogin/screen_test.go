package pilogin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The bytes below are what pi 1.6.0 wrote on a PTY for
// `pi auth login anthropic --no-browser` (URL shortened), and a paste.
func TestScreenOfPiOutput(t *testing.T) {
	var s screen
	for _, chunk := range []string{
		"Select Anthropic login method: Copy code login (headless)\r\n",
		"Open this URL to sign in:\r\n",
		"  https://claude.ai/oauth/authorize?code=true&state=S1\r\n",
		"Complete login in your browser, then copy the code Anthropic shows and paste it here.\r\n",
		"\x1b[1G", "\x1b[0JPaste the code Anthropic shows after you sign in: (code#state): \x1b[65G",
	} {
		s.write([]byte(chunk))
	}
	if got, want := s.partial(), "Paste the code Anthropic shows after you sign in: (code#state):"; got != want {
		t.Errorf("partial = %q, want %q", got, want)
	}
	for _, chunk := range []string{"a", "b", "c", "#S", "1", "\r\r\n", "Failed to log in to Anthropic: fetch failed\r\n"} {
		s.write([]byte(chunk))
	}
	want := []string{
		"Select Anthropic login method: Copy code login (headless)",
		"Open this URL to sign in:",
		"  https://claude.ai/oauth/authorize?code=true&state=S1",
		"Complete login in your browser, then copy the code Anthropic shows and paste it here.",
		"Paste the code Anthropic shows after you sign in: (code#state): abc#S1",
		"Failed to log in to Anthropic: fetch failed",
	}
	if d := cmp.Diff(want, s.lines); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	if s.partial() != "" {
		t.Errorf("partial = %q after the last newline", s.partial())
	}
	page, code := signInPage(s.lines)
	if page != "https://claude.ai/oauth/authorize?code=true&state=S1" || code != "" {
		t.Errorf("signInPage = %q, %q", page, code)
	}
}

func TestSignInPage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		lines      []string
		page, code string
	}{
		{"auth url", []string{"Open this URL to sign in:", "  https://a.test/x?y=1"}, "https://a.test/x?y=1", ""},
		{"device code", []string{"Open https://github.com/login/device and enter code: AB-12", "Waiting for authentication..."}, "https://github.com/login/device", "AB-12"},
		{"javascript refused", []string{"Open this URL to sign in:", "  javascript:alert(1)"}, "", ""},
		{"file refused", []string{"Open file:///etc/passwd and enter code: X"}, "", ""},
		{"no host refused", []string{"Open this URL to sign in:", "  https:///x"}, "", ""},
		{"nothing", []string{"Failed to log in to xAI: fetch failed"}, "", ""},
		{"url last line", []string{"Open this URL to sign in:"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, code := signInPage(tc.lines)
			if page != tc.page || code != tc.code {
				t.Errorf("signInPage = %q, %q; want %q, %q", page, code, tc.page, tc.code)
			}
		})
	}
}

func TestScreenEscapes(t *testing.T) {
	var s screen
	s.write([]byte("\x1b]8;;https://x.test\x07link\x1b]8;;\x1b\\ abc\x1b[2Dz\x1b[K\x1b[31mred\x1b[0m\bX\x00\n"))
	if d := cmp.Diff([]string{"link azreX"}, s.lines); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

func FuzzScreen(f *testing.F) {
	f.Add([]byte("\x1b[1G\x1b[0JPaste: \x1b[9Gab\r\r\n"))
	f.Add([]byte("\x1b[999999999Cx\x1b[99999999999Gy\n"))
	f.Fuzz(func(t *testing.T, p []byte) {
		var s screen
		s.write(p)
		_ = s.partial()
		signInPage(s.lines)
		if len(s.lines) > maxLines {
			t.Fatalf("%d lines kept", len(s.lines))
		}
		for _, l := range append(s.lines, string(s.cur)) {
			if n := len([]rune(l)); n > maxCols {
				t.Fatalf("a line of %d runes", n)
			}
		}
	})
}

func TestCommandLine(t *testing.T) {
	home, _ := os.UserHomeDir()
	for _, tc := range []struct{ dir, want string }{
		{"", "pi auth login"},
		{filepath.Join(home, ".pi", "agent"), "pi auth login"},
		{"/srv/pi/agent", "PI_CODING_AGENT_DIR=/srv/pi/agent pi auth login"},
		{"/tmp/it's here", `PI_CODING_AGENT_DIR='/tmp/it'\''s here' pi auth login`},
	} {
		if got := CommandLine(tc.dir); got != tc.want {
			t.Errorf("CommandLine(%q) = %q, want %q", tc.dir, got, tc.want)
		}
	}
}
