package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"piweb/internal/agent"
	"piweb/internal/apitype"
	"piweb/internal/app"
	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// nobody is the uid and gid of the second user the peer tests connect as.
const nobody = 65534

// spyAgent counts the calls that would start or drive pi.
type spyAgent struct {
	agent.Adapter
	calls atomic.Int32
}

func (a *spyAgent) Command(ctx context.Context, path string, cmd json.RawMessage) (json.RawMessage, error) {
	a.calls.Add(1)
	return json.RawMessage(`{}`), nil
}

func (a *spyAgent) Create(ctx context.Context, req agent.CreateRequest) (string, string, error) {
	a.calls.Add(1)
	return "", "", fmt.Errorf("spy")
}

// serveLoopback serves the rig's server through Serve (whose connections
// carry the peer check) on a loopback port and returns its base URL.
func serveLoopback(t *testing.T, r *rig, network, addr string) string {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// TestPeerOtherUser: on a loopback server without sign-in, a client
// running as another OS user is refused a read and a bash command, and
// nothing is started, whatever source address it connects from (Linux
// delivers a connection to 127.0.0.1 or ::1 from any of the machine's
// addresses); the owner (this process's uid) needs no credentials, from
// any source address too. A share link's page is the one thing another
// user gets, with the link (docs/decisions/0042).
func TestPeerOtherUser(t *testing.T) {
	t.Parallel() // its own rig (server, index, pi); shares nothing with other tests
	if os.Geteuid() != 0 {
		pitest.Missing(t, "the peer test runs a client as another uid, which needs root")
	}
	spy := &spyAgent{Adapter: agent.NoService{}}
	r := newRig(t, Options{}, app.Config{Agent: spy})
	id := r.items()[0].ID
	share, err := r.api().Share(t.Context(), apitype.ShareRequest{Session: id})
	if err != nil {
		t.Fatal(err)
	}
	bin := copyForNobody(t)
	v4, v6 := machineAddrs(t)
	owned := 0
	for _, l := range []struct{ network, addr, src string }{
		{"tcp4", "127.0.0.1:0", ""}, {"tcp6", "[::1]:0", ""}, {"tcp", ":0", ""},
		{"tcp4", "127.0.0.1:0", v4}, {"tcp6", "[::1]:0", v6}, {"tcp", "localhost:0", v4},
	} {
		name := l.addr + " from " + l.src
		base := serveLoopback(t, r, l.network, l.addr)
		if l.addr == ":0" || l.addr == "localhost:0" { // a dual-stack listener sees IPv4-mapped clients
			base = "http://127.0.0.1:" + base[strings.LastIndex(base, ":")+1:]
		}
		owner := peerRun(t, exec.Command(os.Args[0]), base, id, share.Path, l.src)
		if owner != "200 200 200" {
			t.Errorf("%s: owner got %q, want 200 200 200", name, owner)
		}
		owned++
		cmd := exec.Command(bin)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		before := spy.calls.Load()
		if got := peerRun(t, cmd, base, id, share.Path, l.src); got != "403 403 200" {
			t.Errorf("%s: another user got %q, want 403 403 200", name, got)
		}
		if spy.calls.Load() != before {
			t.Errorf("%s: another user's command reached the agent", name)
		}
	}
	if n := spy.calls.Load(); n != int32(owned) {
		t.Errorf("agent calls %d, want the owner's %d", n, owned)
	}
}

// machineAddrs returns one non-loopback IPv4 and one non-loopback,
// non-link-local IPv6 address of this machine, the sources another user
// can connect to 127.0.0.1 and ::1 from.
func machineAddrs(t *testing.T) (v4, v6 string) {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || n.IP.IsLoopback() || n.IP.IsLinkLocalUnicast() {
			continue
		}
		if n.IP.To4() != nil && v4 == "" {
			v4 = n.IP.String()
		} else if n.IP.To4() == nil && v6 == "" {
			v6 = n.IP.String()
		}
	}
	if v4 == "" || v6 == "" {
		pitest.Missing(t, "a non-loopback IPv4 and IPv6 address on this machine (have %q, %q)", v4, v6)
	}
	return v4, v6
}

// copyForNobody copies the test binary where the other user can run it.
func copyForNobody(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "piweb-peer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data := testkit.ReadFile(t, os.Args[0])
	bin := filepath.Join(dir, "client")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// peerRun runs the peer client and returns its "READ COMMAND SHARE"
// statuses.
// src, when not empty, is the local address the client connects from.
func peerRun(t *testing.T, cmd *exec.Cmd, base, id, share, src string) string {
	t.Helper()
	cmd.Env = append(os.Environ(), "PIWEB_PEER_CLIENT="+base, "PIWEB_PEER_ID="+id, "PIWEB_PEER_SRC="+src,
		"PIWEB_PEER_SHARE="+share)
	cmd.Dir = "/"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("peer client: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// peerClient is the child process of peerRun: it reads a session, posts
// a bash command and opens the share link of PIWEB_PEER_SHARE, and prints
// the three statuses. src, when not empty, is
// the local address it connects from.
func peerClient(base, id, src string) int {
	c := http.DefaultClient
	if src != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
		c = &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	}
	get, err := c.Get(base + "/api/sessions/" + id)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	io.Copy(io.Discard, get.Body)
	get.Body.Close()
	post, err := c.Post(base+"/api/sessions/"+id+"/commands", "application/json",
		strings.NewReader(`{"type":"bash","command":"touch /tmp/piweb-peer-ran"}`))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	io.Copy(io.Discard, post.Body)
	post.Body.Close()
	share, err := c.Get(base + os.Getenv("PIWEB_PEER_SHARE"))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	io.Copy(io.Discard, share.Body)
	share.Body.Close()
	fmt.Println(get.StatusCode, post.StatusCode, share.StatusCode)
	return 0
}
