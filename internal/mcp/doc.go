// Package mcp is piweb's Model Context Protocol server (piweb mcp): an
// agent such as pi, which starts it as a stdio server from its mcp.json,
// searches and reads every pi session on the machine through it, answered
// from piweb's session index without a running piweb.
//
// # Contract
//
// Transport: MCP's stdio transport. Each message is one line of JSON-RPC
// 2.0 on the reader, each answer one line on the writer; nothing else is
// written there (logs go to the Logger, stderr in piweb mcp). Requests are
// answered one at a time, in order. The server stops, returning nil, at
// the end of its input (after answering what it read) or when its context
// ends; a write that fails (the client closed its end mid-answer) stops it
// with that error, which the command takes as a clean exit.
//
// Protocol: initialize answers the client's protocolVersion when it is
// one of SupportedVersions, else the newest (the client then decides);
// notifications/initialized, notifications/cancelled and any other
// notification are read and not answered; ping answers {}; tools/list
// lists every tool (one page); tools/call runs one. Requests are served
// before initialize too (lenient: the spec only says clients should not
// send them). Batches (JSON arrays, dropped from the protocol in
// 2025-06-18) are refused as invalid requests.
//
// Errors, as the spec has them: a line that is not JSON, -32700 (id null);
// a line over MaxLine bytes (its bytes are skipped, never held), not an
// object, without "jsonrpc":"2.0" or with an id that is not a string or
// number, -32600; an unknown method, -32601; tools/call of an unknown
// tool or with params that are not {name, arguments}, -32602; a panic
// inside a tool, -32603 (logged; the server goes on). Arguments a tool
// cannot use (a wrong type, out of range, an unknown session) are a tool
// result with isError, in words the model can act on, as the spec asks
// for input validation errors since 2025-11-25.
//
// Tools, all read-only (annotated readOnlyHint, not openWorld), each
// answer one text block of JSON, bounded in size (a read tool's page is at
// most its maxChars, default DefaultChars, at most MaxChars; a search at
// most MaxHits hits with short snippets):
//
//   - search: the page's search syntax (words, "phrases", prefix*, and the
//     filters project: after: before: role: model: branch:, read by
//     catalog.QueryOver), branch-aware: hits on the current branch first,
//     each saying whether it is on it; with the total count and the
//     warnings of filters left out.
//   - list_sessions: the sessions of a project (its folder's name or path;
//     all projects when absent), newest activity first, paged by offset.
//   - read_context: pi's context of a session at its leaf (what the model
//     saw), a page of messages from start (negative counts from the end);
//     the next page's start is in the answer.
//   - read_entry: one entry's line as the file holds it, paged by byte
//     offset.
//
// Sessions are named by their id or a unique prefix of it (at least 4
// characters), never by path: only indexed sessions can be read.
// Before each tool call Options.Fresh brings the index up to date (an
// incremental sync), so a session written a minute ago is found; a call
// waits for it Options.FreshWait at most (a first run's whole build can
// take minutes), then answers from the index as it is with a second text
// block that says so.
package mcp
