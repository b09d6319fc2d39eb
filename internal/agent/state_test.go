package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"piweb/internal/pitest"
	"piweb/internal/testkit"
)

// transcriptLine is one item of a recorded real pi 0.73.1 RPC session.
type transcriptLine struct {
	T   float64         `json:"t_ms"`
	Dir string          `json:"dir"`
	Msg json.RawMessage `json:"msg"`
}

func readTranscript(t testing.TB, name string) []transcriptLine {
	t.Helper()
	return readTranscriptFile(t, filepath.Join(transcriptDir(t), name+".jsonl"))
}

// readTranscriptFile reads the transcript at path (0.73.1's and 1.6.0's
// recordings share the line format).
func readTranscriptFile(t testing.TB, path string) []transcriptLine {
	t.Helper()
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		missing(t, "transcripts: "+err.Error())
	}
	defer f.Close()
	var out []transcriptLine
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := readLine(r)
		if len(line) > 0 {
			var tl transcriptLine
			if err := json.Unmarshal(line, &tl); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, tl)
		}
		if err != nil {
			return out
		}
	}
}

var epoch = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

func at(ms float64) time.Time { return epoch.Add(time.Duration(ms * float64(time.Millisecond))) }

// replay runs a transcript through a Machine and returns its transitions,
// failing when pi itself reported streaming/compacting while the machine
// said idle.
func replay(t *testing.T, name string, check func(typ string, n int, s Status)) string {
	return replayLines(t, name, readTranscript(t, name), check)
}

// replayLines is replay over transcript lines already read.
func replayLines(t *testing.T, name string, lines []transcriptLine, check func(typ string, n int, s Status)) string {
	var m Machine
	var b strings.Builder
	prev := ""
	counts := map[string]int{}
	for _, tl := range lines {
		if tl.Dir != "out" {
			continue
		}
		e := Event{Type: fieldString(tl.Msg, "type"), Raw: tl.Msg}
		now := at(tl.T)
		if e.Type == EvResponse && fieldString(tl.Msg, "command") == "get_state" {
			var r struct{ Data State }
			json.Unmarshal(tl.Msg, &r)
			if (r.Data.IsStreaming || r.Data.IsCompacting) && !m.Status(now).Busy() {
				t.Errorf("%s @%.1f: pi says streaming=%v compacting=%v, machine says idle",
					name, tl.T, r.Data.IsStreaming, r.Data.IsCompacting)
			}
			continue
		}
		if s := m.Status(now); describe(s) != prev {
			prev = describe(s)
			fmt.Fprintf(&b, "%9.1f (time)  %s\n", tl.T, prev)
		}
		m.Apply(e, now)
		counts[e.Type]++
		s := m.Status(now)
		if check != nil {
			check(e.Type, counts[e.Type], s)
		}
		if describe(s) != prev {
			prev = describe(s)
			fmt.Fprintf(&b, "%9.1f %-18s %s\n", tl.T, e.Type, prev)
		}
	}
	return b.String()
}

func describe(s Status) string {
	d := string(s.Phase)
	if s.Retrying && s.Phase != PhaseRetrying {
		d += "+retry"
	}
	if len(s.Steering)+len(s.FollowUp) > 0 {
		d += fmt.Sprintf(" steer=%q follow=%q", s.Steering, s.FollowUp)
	}
	return d
}

// TestMachineTranscripts replays every transcript; the transitions are
// golden files (go test -run TestMachineTranscripts -update).
func TestMachineTranscripts(t *testing.T) {
	t.Parallel()
	names, _ := filepath.Glob(filepath.Join(transcriptDir(t), "*.jsonl"))
	if len(names) == 0 {
		missing(t, "no transcripts")
	}
	for _, path := range names {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		if strings.HasPrefix(name, "s10_cold") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			testkit.Golden(t, filepath.Join("testdata", "phases", name+".txt"), replay(t, name, nil))
		})
	}
}

// TestMachineTranscripts16 replays pi 1.6.0's recorded RPC sessions
// (agent_settled, delta-only updates, retries dropped by context_edit, an
// aborted compaction, ...): the machine must never say idle while pi says
// it streams or compacts, and its transitions are golden files
// (testdata/phases-1.6.0, go test -run TestMachineTranscripts16 -update).
func TestMachineTranscripts16(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(pitest.FixturesDir(t), "rpc-1.6.0", "transcripts")
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "transcript.jsonl"))
	if len(paths) == 0 {
		missing(t, "no pi 1.6.0 transcripts")
	}
	for _, path := range paths {
		name := filepath.Base(filepath.Dir(path))
		t.Run(name, func(t *testing.T) {
			got := replayLines(t, name, readTranscriptFile(t, path), nil)
			testkit.Golden(t, filepath.Join("testdata", "phases-1.6.0", name+".txt"), got)
		})
	}
}

// TestMachineKeyMoments pins the behaviours the issue calls out.
func TestMachineKeyMoments(t *testing.T) {
	t.Parallel()
	type moment struct {
		after string // event type
		n     int    // its nth occurrence
		want  string // describe(status) right after it
	}
	tests := []struct {
		transcript string
		moments    []moment
	}{
		{"s07_retry", []moment{
			{EvAgentEnd, 1, "settling"},
			{EvAutoRetryStart, 1, "retrying"}, // pi's get_state says isStreaming:false here
			{EvAgentStart, 2, "streaming+retry"},
			{EvAutoRetryEnd, 1, "streaming"},
			{EvAutoRetryEnd, 3, "idle"}, // abort_retry ends the back-off
		}},
		{"s15_auto_compaction_threshold", []moment{{EvCompactionStart, 1, "compacting"}, {EvCompactionEnd, 1, "settling"}}},
		{"s15_auto_compaction_overflow", []moment{
			{EvCompactionStart, 1, "compacting"},
			{EvCompactionEnd, 1, "settling"}, // willRetry: the turn restarts by itself
			{EvAgentStart, 3, "streaming"},
		}},
		{"s15_compact_while_streaming", []moment{{EvCompactionEnd, 1, "settling"}}},
		{"s05_streaming", []moment{
			{EvQueueUpdate, 1, `streaming steer=["[text] steered message"] follow=[]`},
			{EvQueueUpdate, 2, `streaming steer=["[text] steered message"] follow=["[text] followup message"]`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.transcript, func(t *testing.T) {
			seen := map[string]string{}
			replay(t, tt.transcript, func(typ string, n int, s Status) {
				seen[fmt.Sprint(typ, "#", n)] = describe(s)
			})
			for _, m := range tt.moments {
				key := fmt.Sprint(m.after, "#", m.n)
				if got, ok := seen[key]; !ok || got != m.want {
					t.Errorf("after %s: %q, want %q", key, got, m.want)
				}
			}
		})
	}
}

// TestMachineSettleExpires checks the Settling window ends by time alone.
func TestMachineSettleExpires(t *testing.T) {
	t.Parallel()
	var m Machine
	now := epoch
	m.Apply(Event{Type: EvAgentStart, Raw: []byte(`{"type":"agent_start"}`)}, now)
	m.Apply(Event{Type: EvAgentEnd, Raw: []byte(`{"type":"agent_end","messages":[]}`)}, now)
	if p := m.Status(now.Add(DefaultSettle - time.Millisecond)).Phase; p != PhaseSettling {
		t.Errorf("just before: %s", p)
	}
	if p := m.Status(now.Add(DefaultSettle)).Phase; p != PhaseIdle {
		t.Errorf("at deadline: %s", p)
	}
	m.Reset(State{IsCompacting: true})
	if p := m.Status(now).Phase; p != PhaseCompacting {
		t.Errorf("after Reset: %s", p)
	}
}
