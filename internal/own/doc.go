// Package own keeps piweb's own small files under its config dir, the ones
// that are not pi's (pi's are piconfig's) and not session files (those are
// session's), and the whole-file replacement every small config file uses.
//
//   - WriteFile, WritePrivateJSON and ReadJSON replace a small file whole:
//     a temp file beside it (".piweb-tmp-<name>-*") with its mode, synced,
//     renamed over the target, the folder synced. A reader sees the old
//     content or the new, never a part, and a crash leaves at most a temp
//     file beside the target. piconfig writes pi's files with WriteFile.
//   - PrefsStore keeps piweb's preferences (Prefs) in prefs.json, so a
//     preference set on one device holds on every device and across
//     restarts.
//   - AttentionStore keeps what the user has seen and silenced (Attention)
//     in attention.json, so that it follows them across their browsers and
//     devices: when each session was last read, which sessions are muted,
//     and whether everything is.
//   - OrderStore keeps the user's pins and archive (Order) in order.json:
//     which sessions are listed first in their project, and which are
//     left out of the sidebar until restored.
//   - ShareStore keeps the read-only share links in shares.json: each
//     link's session, scope and expiry, and its token's hash, never the
//     token.
//
// Each store's file is the user's alone (0600, folder 0700), replaced on
// every change before the change is adopted (a failed write changes
// nothing), and a file that does not parse is an error, never overwritten.
// An empty dir keeps a store in memory only. Stores are safe for
// concurrent use.
package own
