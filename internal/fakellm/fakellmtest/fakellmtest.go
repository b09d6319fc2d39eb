// Package fakellmtest serves the fake LLM for a test: the four steps every
// test of a live pi took (a fakellm.Server, an httptest server for it
// closed when the test ends, and pi's models.json and settings.json in the
// agent dir pointing at it) in one call.
package fakellmtest

import (
	"net/http/httptest"
	"testing"

	"piweb/internal/fakellm"
)

// Serve serves a fake LLM scripted by o until t ends and sets agentDir up
// for pi to use it (fakellm.SetupAgentDir); it returns the server and its
// base URL, which ends in /v1.
func Serve(t testing.TB, agentDir string, o fakellm.Options) (*fakellm.Server, string) {
	t.Helper()
	llm := fakellm.New(o)
	ts := httptest.NewServer(llm)
	t.Cleanup(ts.Close)
	url := ts.URL + "/v1"
	if err := fakellm.SetupAgentDir(agentDir, url); err != nil {
		t.Fatal(err)
	}
	return llm, url
}
