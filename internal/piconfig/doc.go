// Package piconfig reads and writes pi's own configuration files under the
// agent dir (PI_CODING_AGENT_DIR, else ~/.pi/agent) exactly as pi 1.6.0
// does, so that a pi started afterwards uses what piweb wrote:
//
//   - settings.json (global) and <cwd>/.pi/settings.json (project): pi's
//     SettingsManager.persistScopedSettings, i.e. the file is re-read under
//     pi's lock, pi's settings migrations are applied, only the changed
//     top-level fields (or the changed members of a nested object such as
//     compaction) are replaced, and the whole is written as
//     JSON.stringify(settings, null, 2) with no trailing newline;
//   - auth.json: pi's AuthStorage.modify/delete ({"type":"api_key","key"}
//     per provider, the same spread order, mode 0600 for a new file);
//   - models.json: custom providers, which pi only reads.
//
// Every write takes pi's own lock (proper-lockfile's "<file>.lock"
// directory, so a pi writing at the same moment waits for piweb and the
// reverse), re-reads the file under it, keeps every key piweb does not
// change with its order and JSON.stringify's bytes, and replaces the file
// atomically (a synced temp file renamed over it) after saving the previous
// content as "<file>.bak". A file that does not parse is reported as a
// *CorruptError and never written over, unless the caller asks to replace
// it, and then only after it is saved as "<file>.corrupt-<time>".
//
// API keys never leave this package in full: listings carry Mask's form.
package piconfig
