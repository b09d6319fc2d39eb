package server

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Load generators for the listing benchmarks. A browser is another
// process; a load generator inside the server's process competes with it
// for the Go scheduler's two Ps and counts that wait as server latency. So
// the benchmarks load from a child process (this test binary started again
// with PIWEB_BENCH_LOAD set) and also, for comparison, from goroutines.

func TestMain(m *testing.M) {
	if base := os.Getenv("PIWEB_LOAD_CLIENT"); base != "" {
		os.Exit(loadClient(base))
	}
	if url := os.Getenv("PIWEB_PEER_CLIENT"); url != "" {
		os.Exit(peerClient(url, os.Getenv("PIWEB_PEER_ID"), os.Getenv("PIWEB_PEER_SRC")))
	}
	if url := os.Getenv("PIWEB_BENCH_LOAD"); url != "" {
		clients, _ := strconv.Atoi(os.Getenv("PIWEB_BENCH_CLIENTS"))
		n, _ := strconv.Atoi(os.Getenv("PIWEB_BENCH_N"))
		os.Exit(loader(url, max(clients, 1), n))
	}
	os.Exit(m.Run())
}

// loader is the child process: clients loop on url and print each
// latency in microseconds, until n requests (0: until stdin closes).
func loader(url string, clients, n int) int {
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	lat := func(d time.Duration) {
		mu.Lock()
		fmt.Fprintln(out, d.Microseconds())
		out.Flush()
		mu.Unlock()
	}
	work := make(chan struct{})
	go func() {
		defer close(work)
		stdin := make(chan struct{})
		go func() { io.Copy(io.Discard, os.Stdin); close(stdin) }()
		for i := 0; n <= 0 || i < n; i++ {
			select {
			case work <- struct{}{}:
			case <-stdin:
				return
			}
		}
	}()
	err := runClients(url, clients, work, lat)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runClients runs `clients` connections that GET url once per value from
// work and pass each latency to record, until work closes or a request
// fails.
func runClients(url string, clients int, work <-chan struct{}, record func(time.Duration)) error {
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	get := getter(url, clients)
	for range clients {
		wg.Go(func() {
			for range work {
				d, err := get()
				if err != nil {
					once.Do(func() { failed = err })
					return
				}
				record(d)
			}
		})
	}
	wg.Wait()
	return failed
}

// getter returns a function that GETs url and reads the whole answer. A
// "#gzip" suffix asks for gzip but does not inflate (a browser does that
// outside the network path).
func getter(url string, clients int) func() (time.Duration, error) {
	gz := strings.HasSuffix(url, "#gzip")
	url = strings.TrimSuffix(url, "#gzip")
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true}}
	return func() (time.Duration, error) {
		t0 := time.Now()
		req, _ := http.NewRequest("GET", url, nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		return time.Since(t0), nil
	}
}

// loadProc loads url from a child process with `clients` connections for
// n requests, or until stop closes when n is 0, and returns the latencies.
func loadProc(b *testing.B, url string, clients, n int, stop <-chan struct{}) []time.Duration {
	cmd := exec.Command(os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), "PIWEB_BENCH_LOAD="+url, "PIWEB_BENCH_CLIENTS="+strconv.Itoa(clients),
		"PIWEB_BENCH_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			us, _ := strconv.Atoi(sc.Text())
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
	}()
	if n <= 0 {
		<-stop
		stdin.Close() // the child stops when its stdin closes
	}
	<-read
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		b.Fatalf("load process: %v", err)
	}
	return lat
}

// loadInProc is loadProc with goroutines of this process as clients.
func loadInProc(b *testing.B, url string, clients, n int, stop <-chan struct{}) []time.Duration {
	var mu sync.Mutex
	var lat []time.Duration
	work := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- runClients(url, clients, work, func(d time.Duration) {
			mu.Lock()
			lat = append(lat, d)
			mu.Unlock()
		})
	}()
	for i := 0; n <= 0 || i < n; i++ {
		select {
		case work <- struct{}{}:
			continue
		case err := <-errc: // every client gave up
			b.Fatal(err)
		case <-stop:
		}
		break
	}
	close(work)
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	return lat
}

// report sets the latency metrics: percentiles, max, throughput and how
// many requests took over 100 ms.
func report(b *testing.B, lat []time.Duration, elapsed time.Duration) {
	if len(lat) == 0 {
		b.Fatal("no requests")
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
	over := len(lat) - sortIndex(lat, 100*time.Millisecond)
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1])/1e6, "max-ms")
	b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(over), "over-100ms")
	b.ReportMetric(0, "ns/op")
}

// sortIndex is the number of latencies up to d in sorted lat.
func sortIndex(lat []time.Duration, d time.Duration) int {
	i, _ := slices.BinarySearch(lat, d+1)
	return i
}

// schedWatch samples the Go scheduler's latency histogram (how long
// runnable goroutines waited for a P) so that a benchmark can say whether
// slow requests waited in this process or outside it.
type schedWatch struct{ start *metrics.Float64Histogram }

const schedMetric = "/sched/latencies:seconds"

func newSchedWatch() schedWatch {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	return schedWatch{s[0].Value.Float64Histogram()}
}

// report sets the p99 and max of the waits since newSchedWatch.
func (w schedWatch) report(b *testing.B) {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	h := s[0].Value.Float64Histogram()
	var total uint64
	counts := make([]uint64, len(h.Counts))
	for i := range counts {
		counts[i] = h.Counts[i] - w.start.Counts[i]
		total += counts[i]
	}
	var seen uint64
	p99, top := 0.0, 0.0
	for i, c := range counts {
		if c == 0 {
			continue
		}
		seen += c
		if p99 == 0 && float64(seen) >= 0.99*float64(total) {
			p99 = h.Buckets[i+1]
		}
		top = h.Buckets[i+1]
	}
	b.ReportMetric(p99*1e3, "sched-p99-ms")
	b.ReportMetric(top*1e3, "sched-max-ms")
}
