// Package agent drives the real pi coding agent (`pi --mode rpc`, JSON
// lines on stdin/stdout) for piweb: one supervised pi process per live
// session, its events fanned out to any number of browsers.
//
// The protocol ground truth is docs/pi-spec/pi-rpc.md, the real pi 0.73.1
// and 1.6.0 transcripts in internal/pitest/testdata/fixtures and pi's own
// dist/modes/rpc/rpc-mode.js. Where they differ, real pi wins.
//
// # Layers
//
//   - Client (client.go, commands.go): one pi process. Find locates pi and
//     reads its version from the package.json beside the resolved script
//     (`pi --version` costs ~1.4 s of Node start-up), falling back to asking
//     pi. Start runs pi in its own process group with PI_OFFLINE=1 and
//     waits for get_state, so startup failures come back from Start, the
//     missing-cwd one as *CwdGoneError. Lines are split on LF only with no
//     size limit (bufio.Reader.ReadSlice, never Scanner). Every command
//     carries an id; responses are matched by id, since pi handles commands
//     concurrently and answers out of order; an id-less error response
//     ("Unknown command") fails the oldest pending call of that command.
//     All 29 RPC commands have typed methods.
//   - Event (event.go, scan.go): {Seq, Type, Raw}. Type is skimmed from the
//     line without decoding (pi writes "type" first, so ~70 ns for a 37 KB
//     message_update); Raw is pi's line verbatim and is forwarded as is.
//     Delta skims assistantMessageEvent without touching the partial
//     message that pi repeats in full on every update.
//   - Machine (state.go): idle / streaming / compacting / retrying /
//     settling, plus the steer and follow-up queues from queue_update.
//     "Busy" comes from events, not from pi's isStreaming, which is false
//     during a retry's back-off. auto_retry_start and threshold compaction
//     are decided by pi after agent_end, so agent_end (and compaction_end)
//     enter a short Settling phase (DefaultSettle, 150 ms; the transcripts
//     show ≤ 5 ms); compaction_end{willRetry} waits for the retried
//     agent_start. Manual compact aborts the turn without an agent_end.
//     Replayed against every transcript (testdata/phases golden files).
//   - Hub (hub.go): a session's topic in the supervisor's broker
//     (internal/broker). Seq numbers never restart for the life of the
//     topic (across pi restarts); replay bounded in events and bytes serves
//     reconnects after a Seq. Publish never blocks: a full subscriber is
//     cut off and marked Lagged, and resubscribes from its last Seq (free
//     if the topic still keeps it, else it resyncs). Idle topics are
//     collected by the reaper.
//   - Worker (worker.go, moves.go): a Client plus Machine, bound to a
//     session file and its Hub. It refuses a plain prompt while busy
//     (ErrBusy, after waiting out Settling), times out extension dialogs
//     (DefaultUITimeout, answered "cancelled"), and re-keys itself when
//     fork/clone/new_session/switch_session move pi to another file (these
//     emit no events; piweb publishes piweb_session_changed).
//   - Supervisor (supervisor.go, spare.go): at most one worker per session
//     file; concurrent starts share one start; idle timeout (10 min, never
//     while busy, a command is in flight or a dialog is open); MaxLive cap
//     stopping the longest-idle non-busy worker (ErrAtCapacity if all are
//     busy); SIGTERM to the group, SIGKILL after KillGrace. A pi that exits
//     by itself publishes piweb_exit{reason:"crashed", status, signal,
//     stderr}; the next Worker call starts a new one.
//
// # First-message latency
//
// pi needs ~1.5 s (3+ s on a loaded machine) to start. With Config.Spare
// one pi is kept started with --no-session; the first use of a session
// takes it and sends switch_session, which rebuilds pi's runtime for the
// session's file and cwd (~50 ms). Starting the next spare is delayed
// (SpareDelay) so Node's CPU-heavy start does not compete with the answer.
// The first LLM request of a process is slowed by pi's lazy loading of the
// provider module and Node's fetch; the bridge extension loads both in the
// background at start (require(esm), Node ≥ 20.19). A new session in a
// given cwd always starts cold: a spare's new_session would use the spare's
// cwd. There is one spare, not counted in MaxLive; a second session opened
// within SpareDelay starts cold.
//
// Config.Base's Model and Thinking apply to new sessions only: pi applies
// CLI overrides to every runtime it creates, switch_session included, and a
// thinking override appends a thinking_level_change to the user's file. A
// resumed session (cold or from the spare) keeps what pi restores from it,
// and opening it writes nothing.
//
// # The bridge extension
//
// RPC has no tree navigation, labels or abort of a compaction.
// ext/piweb-bridge.ts, embedded and written (content-hashed name, private
// dir) by WriteBridge and loaded with -e, registers /piweb-tree,
// /piweb-label, /piweb-leaf and /piweb-abort-compact. The last aborts the
// AbortController pi made for the running compaction (the bridge installs
// an AbortController subclass that remembers controllers by signal, and
// session_before_compact hands it the signal), so pi ends the compaction as
// its own abortCompaction() does; Supervisor.AbortCompaction kills pi
// instead when there is no bridge or pi does not end it (abort.go). The worker sends
// them with the prompt command and they answer through setStatus with a
// "piweb-bridge:<nonce>" key, which the worker intercepts and never
// publishes. Invocation names are looked up with get_commands by the
// bridge's file path, so a user command with the same name (pi renames
// duplicates name:N) is never hit, and a pi without the bridge is never
// sent "/piweb-…" as a prompt for the LLM (ErrNoBridge). Note that pi's
// navigation without summary only moves its in-memory leaf: the file
// reflects it with the next entry.
//
// # Writes and other writers
//
// While a worker is live, writes go through it (pi keeps its leaf in
// memory); with none, Supervisor.SetLabel/SetSessionName use
// Config.Offline, which the server fills from internal/sessionstore.
//
// Another process appending to the same file (a terminal pi) is detected by
// fileTracker (outside.go): while the worker is idle any new line is
// foreign; while it works, lines must chain from the previous one (pi
// appends linearly; bridge navigation is trusted). pi writes a run's or a
// compaction's entries before it announces agent_end or compaction_end, so
// the worker takes them in at that event and the settling window after it
// counts as idle. The supervisor polls
// every OutsidePoll (2 s) and prompts check first. A foreign change
// publishes piweb_outside_change and makes Prompt fail with ErrStale until
// the caller Reloads (switch_session to the same file), Clones (continues
// pi's branch in a new file) or passes Force. An extension of the user's
// that writes entries while pi is idle would be reported as foreign.
//
// # Observed facts worth remembering
//
//   - Once the session file exists, pi appends each entry at its
//     message_end, so a crash mid-stream keeps the user message and loses
//     the partial answer; before the first answer nothing is on disk.
//   - pi's extension loader (jiti) runs extension code without a dynamic
//     import callback: import() of a file fails there; require works.
//   - The label entry written with a navigation summary is a tree node and
//     becomes the leaf.
package agent
