package agent

import (
	"encoding/json"
	"time"
)

// Phase is what a worker is doing, as far as a user sending a message is
// concerned. Only PhaseIdle accepts a plain prompt.
type Phase string

const (
	PhaseIdle       Phase = "idle"
	PhaseStreaming  Phase = "streaming"  // agent_start … agent_end
	PhaseCompacting Phase = "compacting" // compaction_start … compaction_end
	PhaseRetrying   Phase = "retrying"   // auto_retry_start … the retried agent_start
	// PhaseSettling is the short window after agent_end in which pi may
	// still start a retry or an automatic compaction (both decided
	// asynchronously after agent_end, ~1-5 ms later in the transcripts).
	PhaseSettling Phase = "settling"
)

// DefaultSettle is how long after agent_end a worker stays busy waiting for
// auto_retry_start or compaction_start. The transcripts show ≤ 5 ms; the
// margin covers a loaded machine.
const DefaultSettle = 150 * time.Millisecond

// settledWait bounds the wait for agent_settled after agent_end, in case
// pi never sends it; pi sends it within milliseconds of its last work.
const settledWait = 30 * time.Second

// overflowRestart bounds the wait between compaction_end{willRetry:true}
// and the retried agent_start (~100 ms observed).
const overflowRestart = 5 * time.Second

// Status is a snapshot of a worker's state machine.
type Status struct {
	Phase      Phase    `json:"phase"`
	Streaming  bool     `json:"streaming"`
	Compacting bool     `json:"compacting"`
	Retrying   bool     `json:"retrying"`
	Attempt    int      `json:"retryAttempt,omitempty"`
	Steering   []string `json:"steering"`
	FollowUp   []string `json:"followUp"`
}

// Busy reports whether a plain prompt would collide with pi's work.
func (s Status) Busy() bool { return s.Phase != PhaseIdle }

// Machine tracks pi's events into a Status. pi's own isStreaming is false
// during a retry's back-off delay and between agent_end and an automatic
// compaction, so "busy" is derived from the event stream instead. Machine
// is not safe for concurrent use; time is passed in so that tests and
// replays are deterministic.
type Machine struct {
	Settle time.Duration // 0 means DefaultSettle
	// Settles says pi announces the end of its automatic work with
	// agent_settled (pi >= 0.80.4): after agent_end the worker stays busy
	// until agent_settled (bounded by settledWait) instead of for a fixed
	// Settle window. It is also set by the first agent_settled seen.
	Settles bool

	streaming, compacting, retrying bool
	attempt                         int
	settleUntil                     time.Time
	steering, followUp              []string
}

// Reset adopts pi's reported state, e.g. after start or a session switch.
func (m *Machine) Reset(st State) {
	*m = Machine{Settle: m.Settle, Settles: m.Settles, streaming: st.IsStreaming, compacting: st.IsCompacting}
}

// Apply feeds one event and reports whether the status may have changed.
func (m *Machine) Apply(e Event, now time.Time) bool {
	switch e.Type {
	case EvAgentStart:
		m.streaming, m.settleUntil = true, time.Time{}
	case EvAgentEnd:
		m.streaming = false
		m.settleUntil = now.Add(m.settle())
		if m.Settles {
			m.settleUntil = now.Add(settledWait)
		}
	case EvAgentSettled:
		// No more automatic work: no retry, compaction or queued message.
		m.Settles = true
		m.streaming, m.retrying, m.attempt = false, false, 0
		m.settleUntil = time.Time{}
	case EvAutoRetryStart:
		m.retrying, m.settleUntil = true, time.Time{}
		var v struct{ Attempt int }
		_ = DecodeEvent(e, &v)
		m.attempt = v.Attempt
	case EvAutoRetryEnd:
		m.retrying, m.attempt = false, 0
	case EvCompactionStart:
		m.compacting, m.settleUntil = true, time.Time{}
	case EvCompactionEnd:
		m.compactionEnd(e, now)
	case EvQueueUpdate:
		var v struct{ Steering, FollowUp []string }
		_ = DecodeEvent(e, &v)
		m.steering, m.followUp = v.Steering, v.FollowUp
	default:
		return false
	}
	return true
}

func (m *Machine) compactionEnd(e Event, now time.Time) {
	m.compacting = false
	var v struct {
		Reason    string
		WillRetry bool
	}
	_ = json.Unmarshal(e.Raw, &v)
	// Settle briefly either way: the worker then accounts for the
	// compaction entry pi wrote before it counts as idle.
	m.settleUntil = now.Add(m.settle())
	switch {
	case v.WillRetry:
		// Overflow recovery: pi restarts the turn by itself.
		m.settleUntil = now.Add(overflowRestart)
	case v.Reason == "manual":
		// compact aborts a running turn, and pi emits no agent_end for
		// it (s15_compact_while_streaming).
		m.streaming = false
	}
}

func (m *Machine) settle() time.Duration {
	if m.Settle > 0 {
		return m.Settle
	}
	return DefaultSettle
}

// Status returns the state at time now.
func (m *Machine) Status(now time.Time) Status {
	s := Status{Streaming: m.streaming, Compacting: m.compacting, Retrying: m.retrying, Attempt: m.attempt,
		Steering: nonNil(m.steering), FollowUp: nonNil(m.followUp)}
	switch {
	case m.compacting:
		s.Phase = PhaseCompacting
	case m.streaming:
		s.Phase = PhaseStreaming
	case m.retrying:
		s.Phase = PhaseRetrying
	case now.Before(m.settleUntil):
		s.Phase = PhaseSettling
	default:
		s.Phase = PhaseIdle
	}
	return s
}

// SettleDeadline is when a Settling phase ends by itself (zero if none).
func (m *Machine) SettleDeadline() time.Time { return m.settleUntil }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
