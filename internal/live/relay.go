package live

import (
	"piweb/internal/agent"
	"piweb/internal/broker"
	"piweb/internal/catalog"
	"piweb/internal/index"
)

// source is one relay's feed: the catalog's changes, the index's file
// events or the workers' notes, each handed to handle. When the broker
// cuts the relay off as too slow, again subscribes anew and returns the
// events to handle first (what the topic still keeps after the last one
// handled) and whether nothing was missed; if something was, resync
// rebuilds what the missed events would have told.
type source[E broker.Payload[E]] struct {
	sub    *broker.Sub[E]
	handle func(E)
	again  func() (sub *broker.Sub[E], replay []E, complete bool)
	resync func()
}

// relay runs a source until done is closed or its broker closes: the one
// loop of every relay, so none stops silently when it is cut off.
func relay[E broker.Payload[E]](done <-chan struct{}, s source[E]) {
	defer func() { s.sub.Close() }()
	for {
		select {
		case <-done:
			return
		case e, open := <-s.sub.C:
			if open {
				s.handle(e)
				continue
			}
			if !s.sub.Lagged() {
				return // closed: the broker or the catalog ended
			}
			sub, replay, complete := s.again()
			s.sub = sub
			for _, e := range replay {
				s.handle(e)
			}
			if !complete {
				s.resync()
			}
		}
	}
}

// resetIndex tells every tab that index events were missed: the page
// reloads the listing (with its running flags) on "reset".
func (l *Relay) resetIndex() { l.PublishJSON(IndexTopic, eventType{Type: "reset"}) }

// changesSource relays the catalog's changes to the index topic; changes
// missed while cut off are told as a reset.
func (l *Relay) changesSource(sub *broker.Sub[catalog.Change]) source[catalog.Change] {
	return source[catalog.Change]{sub: sub, handle: l.onChange, resync: l.resetIndex,
		again: func() (*broker.Sub[catalog.Change], []catalog.Change, bool) { return l.cat.Changes(), nil, false }}
}

// filesSource applies the file events of the index, subscribed to
// directly, to the followed sessions; events missed while cut off make
// every view reload.
func (l *Relay) filesSource(ix *index.Index, sub *index.Subscription) source[index.Event] {
	return source[index.Event]{sub: sub, handle: l.onFileEvent, resync: l.follows.lost,
		again: func() (*index.Subscription, []index.Event, bool) { return ix.Subscribe(), nil, false }}
}

// workersSource turns the workers' notes into the index topic's running
// and attention events. Cut off, it resumes after the last note it
// handled (the topic keeps 4,096), so nothing is lost unless that many
// came meanwhile, which is told as a reset.
func (l *Relay) workersSource(sub *broker.Sub[broker.Event]) source[broker.Event] {
	var last uint64
	return source[broker.Event]{sub: sub, resync: l.resetIndex,
		handle: func(ev broker.Event) {
			last = ev.Seq
			if n, ok := ev.Value.(agent.WorkerNote); ok {
				l.workerEvent(n)
			}
		},
		again: func() (*broker.Sub[broker.Event], []broker.Event, bool) {
			sub := l.events.NewSub()
			replay, complete, err := sub.Resume(agent.WorkersTopic, last)
			if err != nil {
				sub.Close() // the broker closed: the next read ends the relay
			}
			return sub, replay, complete || err != nil
		}}
}
