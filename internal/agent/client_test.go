package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCommandLine(t *testing.T) {
	tests := []struct {
		args any
		want string
	}{
		{nil, `{"id":"1","type":"get_state"}`},
		{struct{}{}, `{"id":"1","type":"get_state"}`},
		{promptArgs{Message: "hi\u2028"}, `{"id":"1","type":"get_state","message":"hi\u2028"}`},
	}
	for _, tt := range tests {
		got, err := commandLine("1", "get_state", tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want+"\n" {
			t.Errorf("commandLine(%#v) = %s, want %s", tt.args, got, tt.want)
		}
	}
	if _, err := commandLine("1", "x", 3); err == nil {
		t.Error("non-object args accepted")
	}
}

// TestReadLinesHuge feeds lines far larger than any buffer, split on LF
// only (U+2028 inside strings is not a separator).
func TestReadLinesHuge(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	in := `{"type":"a","s":"` + big + "\"}\n" + "{\"type\":\"b\",\"s\":\"\u2028\"}\n" + `{"type":"c"}`
	type line struct {
		Type string
		Len  int
	}
	var got []line
	c := &Client{pending: map[string]*call{}}
	c.opts.OnEvent = func(e Event) { got = append(got, line{e.Type, len(e.Raw)}) }
	c.readLines(strings.NewReader(in))
	want := []line{{"a", len(big) + 19}, {"b", len("{\"type\":\"b\",\"s\":\"\u2028\"}")}, {"c", 12}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// TestDispatchResponses replays responses out of order and an id-less
// "Unknown command" error, which must fail the matching pending call.
func TestDispatchResponses(t *testing.T) {
	c := &Client{pending: map[string]*call{}}
	var events []string
	c.opts.OnEvent = func(e Event) { events = append(events, e.Type) }
	mk := func(id, cmd string) *call {
		cl := &call{command: cmd, done: make(chan struct{})}
		if err := c.register(id, cl); err != nil {
			t.Fatal(err)
		}
		return cl
	}
	bash, state, frob := mk("1", "bash"), mk("2", "get_state"), mk("3", "frobnicate")
	c.readLines(strings.NewReader(strings.Join([]string{
		`{"id":"2","type":"response","command":"get_state","success":true,"data":{"isStreaming":false}}`,
		`{"type":"agent_start"}`,
		`{"type":"response","command":"frobnicate","success":false,"error":"Unknown command: frobnicate"}`,
		`{"type":"response","command":"parse","success":false,"error":"Failed to parse command"}`,
		`{"id":"1","type":"response","command":"bash","success":true,"data":{"output":"done\n"}}`,
		`{"id":"99","type":"response","command":"bash","success":true}`,
	}, "\n")))
	for _, cl := range []*call{bash, state, frob} {
		select {
		case <-cl.done:
		default:
			t.Fatalf("%s not answered", cl.command)
		}
	}
	if frob.resp.Success || frob.resp.Error != "Unknown command: frobnicate" {
		t.Errorf("frobnicate got %+v", frob.resp)
	}
	if !bytes.Contains(bash.resp.Data, []byte("done")) {
		t.Errorf("bash got %+v", bash.resp)
	}
	if diff := cmp.Diff([]string{"agent_start", "response", "response"}, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestFindMissing(t *testing.T) {
	_, err := Find(context.Background(), filepath.Join(t.TempDir(), "nope"))
	if !errors.Is(err, ErrPiMissing) {
		t.Fatalf("err = %v, want ErrPiMissing", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(context.Background(), ""); !errors.Is(err, ErrPiMissing) || !strings.Contains(err.Error(), "PATH") {
		t.Fatalf("err = %v, want ErrPiMissing on PATH", err)
	}
}

// TestFindTooOld fakes an old install layout: a package.json next to the
// script is what Find reads.
func TestFindTooOld(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pi-coding-agent")
	os.MkdirAll(filepath.Join(pkg, "dist"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@mariozechner/pi-coding-agent","version":"0.72.9"}`), 0o644)
	cli := filepath.Join(pkg, "dist", "cli.js")
	os.WriteFile(cli, []byte("#!/bin/sh\necho 0.72.9\n"), 0o755)
	_, err := Find(context.Background(), cli)
	var old *TooOldError
	if !errors.As(err, &old) || old.Version != (Version{0, 72, 9}) {
		t.Fatalf("err = %v, want TooOldError 0.72.9", err)
	}
	if !strings.Contains(err.Error(), "at least 0.73.0") {
		t.Errorf("message %q does not say what is needed", err)
	}
}

func TestFindReal(t *testing.T) {
	pi := testPi(t)
	if pi.Version.Less(Version{0, 73, 1}) {
		t.Fatalf("pinned pi is %s", pi.Version)
	}
}

func TestSpawnMissingBinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _, err := Start(ctx, Options{Pi: &Pi{Path: filepath.Join(t.TempDir(), "gone")}})
	if !errors.Is(err, ErrPiMissing) {
		t.Fatalf("err = %v, want ErrPiMissing", err)
	}
}

// FuzzReadLines feeds arbitrary stdout to the reader: it must never panic,
// must hand out every non-empty line once, and must answer a pending call
// only with a response naming its id or command.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte(`{"id":"1","type":"response","command":"get_state","success":true}` + "\n" + `{"type":"agent_start"}`))
	f.Add([]byte(`{"type":"response","command":"get_state","success":false,"error":"x"}` + "\n\n\r\n"))
	f.Add([]byte("{\"type\":\"message_update\",\"s\":\"\u2028\\\"\"}\n{"))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &Client{pending: map[string]*call{}}
		n := 0
		c.opts.OnEvent = func(e Event) { n++ }
		cl := &call{command: "get_state", done: make(chan struct{})}
		c.register("1", cl)
		c.readLines(bytes.NewReader(in))
		lines := 0
		for _, l := range bytes.Split(in, []byte("\n")) {
			if len(l) > 0 {
				lines++
			}
		}
		answered := false
		select {
		case <-cl.done:
			answered = true
		default:
		}
		if got := n; answered && got != lines-1 || !answered && got != lines {
			t.Fatalf("%d events + answered=%v for %d lines", got, answered, lines)
		}
		if answered && cl.resp.ID != "1" && cl.resp.Command != "get_state" {
			t.Fatalf("call answered by %+v", cl.resp)
		}
	})
}
