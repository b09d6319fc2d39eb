// Package fakellm is piweb's only fake: an OpenAI-compatible streaming
// chat-completions server that the real pi (0.73.1) talks to through its
// openai-completions provider. Machines running piweb's tests have no
// internet, so every test of a live agent, and the product's --demo mode,
// point pi at this server.
//
// It speaks the protocol of pi-ai's providers/openai-completions.js:
// POST {baseUrl}/chat/completions with stream:true and
// stream_options.include_usage, answered by SSE frames "data: {chunk}\n\n"
// (a role chunk, reasoning_content / content / tool_calls deltas, a chunk
// with finish_reason, a usage chunk with empty choices) and "data: [DONE]".
// Errors are OpenAI error bodies; the SDK reports them to pi as
// "<status> <message>", which pi's retry classifier (5xx, 429) and overflow
// detector (pi-ai utils/overflow.js) match.
//
// Typical test (fakellmtest.Serve does the first four lines):
//
//	srv := fakellm.New(fakellm.Options{})
//	ts := httptest.NewServer(srv)
//	defer ts.Close()
//	agentDir := t.TempDir()
//	fakellm.SetupAgentDir(agentDir, ts.URL+"/v1")
//	srv.Enqueue(fakellm.Tools(fakellm.Bash("echo hi")), fakellm.Text("done"))
//	// run pi with PI_CODING_AGENT_DIR=agentDir PI_OFFLINE=1 ...
//	reqs := srv.Requests() // reqs[1].ToolResults()[0].Text() == "hi\n"
//
// Scripting: Text, Think, Tools (with Bash or NewCall), Error (5xx: pi's
// auto-retry), Overflow (pi's overflow compaction), Drop (connection cut
// mid-stream; pi reports "terminated" and retries), and the modifiers
// WithChunks, WithDelay (slow streams), WithHold (pause mid-stream until a
// channel closes, for steer/abort tests without sleeps) and WithUsage (push
// pi over its compaction threshold). Times(n, r) repeats a reply.
//
// Observing: Requests, LastRequest and WaitRequests return decoded
// requests; Request.Kind tells turns from summarization calls, and
// LastUserText, ToolResults, SystemPrompt and ToolNames pick out the parts
// tests usually assert on.
//
// Configuring pi: SetupAgentDir (WriteModelsJSON + WriteSettings) makes
// "pi --mode rpc" with PI_CODING_AGENT_DIR=agentDir start on fake/fake-model
// with fast, SDK-retry-free retries.
//
// Replies come from, in order: the canned summary for pi's summarization
// requests (unless Options.ScriptSummaries), the Enqueue queue, Options.Rule,
// and finally Demo, a deterministic rule good enough for a demo.
package fakellm
