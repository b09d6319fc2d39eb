package server

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"piweb/internal/testkit"
)

// TestLoadBaseline is the load test of issue 17 (bench/load.sh): a client
// process sends 10,000 mixed requests (reads of every kind, a FIFO, a
// rename, wrong routes) and then holds 1,000 event streams open at once;
// the server's threads, fds and RSS are reported before, at their peak
// and after, and must come back to the baseline. Heavy: it runs when
// PIWEB_LOAD=1 (PIWEB_LOAD_REQUESTS and PIWEB_LOAD_STREAMS change the
// sizes).
func TestLoadBaseline(t *testing.T) {
	if os.Getenv("PIWEB_LOAD") == "" {
		t.Skip("heavy: set PIWEB_LOAD=1 (bench/load.sh)")
	}
	requests, streams := testkit.EnvInt("PIWEB_LOAD_REQUESTS", 10000), testkit.EnvInt("PIWEB_LOAD_STREAMS", 1000)
	r := newRig(t, Options{})
	cwd := t.TempDir()
	syscall.Mkfifo(filepath.Join(cwd, "pipe"), 0o644)
	os.WriteFile(filepath.Join(cwd, "ok.txt"), []byte("fine\n"), 0o644)
	id := r.sessionIn(cwd)
	base := serveLoopback(t, r, "tcp", "127.0.0.1:0")

	// The baseline is a warm server: its bounded pools (SQLite readers,
	// keep-alive connections closed since) have been used once.
	loadRun(t, base, id, 500, 20)
	before := settle(t, nil)
	var peak usage
	stopPeak := samplePeak(&peak)
	out := loadRun(t, base, id, requests, streams)
	stopPeak()
	after := settle(t, &before)
	fmt.Printf("load: %s", out)
	fmt.Printf("%-8s %8s %6s %9s %9s\n", "", "threads", "fds", "RSS MiB", "heap MiB")
	for _, row := range []struct {
		name string
		u    usage
	}{{"before", before}, {"peak", peak}, {"after", after}} {
		fmt.Printf("%-8s %8d %6d %9.1f %9.1f\n", row.name, row.u.threads, row.u.fds, mib(row.u.rss), mib(row.u.heap))
	}
	if !strings.Contains(string(out), "streams open "+strconv.Itoa(streams)) {
		t.Errorf("not every stream opened")
	}
	if after.fds > before.fds+4 || after.threads > before.threads+threadSlack || after.rss > before.rss+rssSlack {
		t.Errorf("not back to baseline: before %+v, after %+v", before, after)
	}
}

// loadRun runs the load client process and returns its report.
func loadRun(t *testing.T, base, id string, requests, streams int) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PIWEB_LOAD_CLIENT="+base, "PIWEB_LOAD_ID="+id,
		"PIWEB_LOAD_REQUESTS="+strconv.Itoa(requests), "PIWEB_LOAD_STREAMS="+strconv.Itoa(streams))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("load client: %v\n%s", err, out)
	}
	return out
}

// Baseline tolerances: Go keeps the OS threads it made for blocking system
// calls parked (GOMAXPROCS bounds the running ones, not these), and the
// heap's free pages are returned to the OS by FreeOSMemory.
const (
	threadSlack = 16
	rssSlack    = 24 << 20
)

type usage struct {
	threads, fds int
	rss, heap    int64
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

func readUsage() usage {
	var u usage
	status, _ := os.ReadFile("/proc/self/status")
	for line := range strings.SplitSeq(string(status), "\n") {
		k, v, _ := strings.Cut(line, ":")
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "Threads":
			u.threads = int(n)
		case "VmRSS":
			u.rss = n << 10
		}
	}
	ents, _ := os.ReadDir("/proc/self/fd")
	u.fds = len(ents)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	u.heap = int64(ms.HeapInuse)
	return u
}

// settle waits until the server's connections are gone (fds back near
// before, when given), returns freed memory to the OS and reads usage.
func settle(t *testing.T, before *usage) usage {
	t.Helper()
	if before != nil {
		testkit.Eventually(t, func() error {
			if u := readUsage(); u.fds > before.fds+4 {
				return fmt.Errorf("%d fds open (%s), %d before", u.fds, fdKinds(), before.fds)
			}
			return nil
		}, 30*time.Second, "fds back to baseline")
	}
	runtime.GC()
	debug.FreeOSMemory()
	return readUsage()
}

// fdKinds summarises what this process's fds are.
func fdKinds() string {
	kinds := map[string]int{}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		k, _, _ := strings.Cut(l, ":")
		kinds[k]++
	}
	return fmt.Sprint(kinds)
}

// samplePeak records the highest usage until stopped.
func samplePeak(p *usage) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			u := readUsage()
			p.threads, p.fds = max(p.threads, u.threads), max(p.fds, u.fds)
			p.rss, p.heap = max(p.rss, u.rss), max(p.heap, u.heap)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// loadClient is TestLoadBaseline's client process.
func loadClient(base string) int {
	id := os.Getenv("PIWEB_LOAD_ID")
	requests, streams := testkit.EnvInt("PIWEB_LOAD_REQUESTS", 10000), testkit.EnvInt("PIWEB_LOAD_STREAMS", 1000)
	s := "/api/sessions/" + id
	mix := []string{"/api/status", "/api/sessions", "/api/projects", s, s + "/context", s + "/entries",
		"/api/search?q=theme", "/api/usage?by=day", s + "/files", s + "/file?path=ok.txt", s + "/file?path=pipe",
		"/api/trash", "/", "/app.js", "/api/no-such-route", "POST " + s + "/rename"}
	start := time.Now()
	codes, err := mixed(base, mix, requests)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	fmt.Printf("%d requests in %v, by status %v\n", requests, time.Since(start).Round(time.Millisecond), codes)
	start = time.Now()
	open, err := holdStreams(base, []string{"/api/events", s + "/events", s + "/files/events"}, streams)
	fmt.Printf("streams open %d in %v\n", open, time.Since(start).Round(time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return 1
	}
	return 0
}

// mixed sends n requests from 8 keep-alive clients, cycling through mix,
// and counts the statuses; a 5xx is an error.
func mixed(base string, mix []string, n int) (map[int]int, error) {
	var next atomic.Int64
	var mu sync.Mutex
	codes := map[int]int{}
	var failed atomic.Value
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				code, err := send(base, mix[i%int64(len(mix))], i)
				if err == nil && code >= 500 {
					err = fmt.Errorf("%s: %d", mix[i%int64(len(mix))], code)
				}
				if err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return codes, err
	}
	return codes, nil
}

func send(base, what string, i int64) (int, error) {
	method, path := "GET", what
	var body io.Reader
	if m, p, found := strings.Cut(what, " "); found {
		method, path, body = m, p, strings.NewReader(fmt.Sprintf(`{"name":"load %d"}`, i))
	}
	req, _ := http.NewRequest(method, base+path, body)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// holdStreams opens n event streams at once (each its own connection),
// waits for every first event, then closes them all.
func holdStreams(base string, urls []string, n int) (int, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: -1, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	bodies := make(chan io.Closer, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, 64) // connecting at once
	for i := range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			resp, err := client.Get(base + urls[i%len(urls)])
			if err != nil {
				errs <- err
				return
			}
			line, err := bufio.NewReader(resp.Body).ReadString('\n')
			if err != nil || resp.StatusCode != 200 || !strings.HasPrefix(line, "id:") && !strings.HasPrefix(line, "data:") {
				resp.Body.Close()
				errs <- fmt.Errorf("stream %s: %d %q %v", urls[i%len(urls)], resp.StatusCode, line, err)
				return
			}
			bodies <- resp.Body
		}()
	}
	var open []io.Closer
	var firstErr error
	for range n {
		select {
		case b := <-bodies:
			open = append(open, b)
		case err := <-errs:
			firstErr = cmpOr(firstErr, err)
		}
	}
	for _, b := range slices.Backward(open) {
		b.Close()
	}
	return len(open), firstErr
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
