package fleet

import (
	"context"
	"time"

	"piweb/internal/apitype"
	"piweb/internal/catalog"
)

// Service is the fleet as the server and the App use it (server.Fleet,
// app.FleetNotices): the database's reader for the whole fleet and this
// machine's pusher for its status. Reader is nil when the URL does not
// parse (Err says why): every answer is then that error.
type Service struct {
	Reader *Reader
	Err    error
	Pusher *Pusher
	Name   string
}

// NewService is the service of a pusher and a reader of url.
func NewService(url, machine string, p *Pusher) *Service {
	s := &Service{Pusher: p, Name: machine}
	s.Reader, s.Err = NewReader(url)
	return s
}

// Close closes the reader's connections.
func (s *Service) Close() {
	if s.Reader != nil {
		s.Reader.Close()
	}
}

func (s *Service) Sessions(ctx context.Context, q catalog.ListQuery, machine string) (apitype.SessionList, error) {
	if s.Reader == nil {
		return apitype.SessionList{}, s.Err
	}
	return s.Reader.Sessions(ctx, q, machine)
}

func (s *Service) Search(ctx context.Context, q catalog.SearchQuery) (apitype.Search, error) {
	if s.Reader == nil {
		return apitype.Search{}, s.Err
	}
	return s.Reader.Search(ctx, q)
}

func (s *Service) Usage(ctx context.Context, q UsageQuery) ([]catalog.UsageRow, error) {
	if s.Reader == nil {
		return nil, s.Err
	}
	return s.Reader.Usage(ctx, q)
}

func (s *Service) UsageSessions(ctx context.Context, since time.Time, limit int) ([]apitype.UsageSession, error) {
	if s.Reader == nil {
		return nil, s.Err
	}
	return s.Reader.UsageSessions(ctx, since, limit)
}

func (s *Service) Session(ctx context.Context, machine, id string) (catalog.Meta, []byte, error) {
	if s.Reader == nil {
		return catalog.Meta{}, nil, s.Err
	}
	return s.Reader.Session(ctx, machine, id)
}

// Machine is this machine's name in the fleet.
func (s *Service) Machine() string { return s.Name }

func (s *Service) Machines(ctx context.Context, now time.Time) ([]MachineInfo, error) {
	if s.Reader == nil {
		return nil, s.Err
	}
	return s.Reader.Machines(ctx, now)
}

// Status is this machine's push.
func (s *Service) Status() apitype.FleetStatus { return s.Pusher.Status() }

// Listen is Reader.Listen (nothing without a reader).
func (s *Service) Listen(ctx context.Context, retry time.Duration, changed func(string)) {
	if s.Reader != nil {
		s.Reader.Listen(ctx, retry, changed)
	}
}
