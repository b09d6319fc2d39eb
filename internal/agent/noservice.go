package agent

import (
	"context"
	"encoding/json"

	"piweb/internal/apitype"
	"piweb/internal/broker"
	"piweb/internal/errs"
)

// PiStatus is what the web app is told about pi (GET /api/status)
// (apitype.PiStatus, where the API's shapes are defined).
type PiStatus = apitype.PiStatus

// CreateRequest is the body of POST /api/sessions: a new session in Cwd
// with its first message and the user's choices for it
// (apitype.CreateRequest, where the API's shapes are defined).
type CreateRequest = apitype.CreateRequest

// RequestError is a command the Service refuses before pi sees it
// (malformed fields); Msg is safe to show the client.
type RequestError struct{ Msg string }

func (e *RequestError) Error() string { return e.Msg }

// ErrorKind is errs.Invalid (errs.Classified).
func (e *RequestError) ErrorKind() errs.Kind { return errs.Invalid }

// ClientMessage is Msg.
func (e *RequestError) ClientMessage() string { return e.Msg }

func badRequest(msg string) error { return &RequestError{Msg: msg} }

// NoService is the Service's stand-in when pi is missing: everything
// browses, nothing runs, and what would need pi fails with ErrPiMissing.
type NoService struct{ Status PiStatus }

func (a NoService) Pi() PiStatus                                                    { return a.Status }
func (NoService) Running(string) bool                                               { return false }
func (NoService) State(string) string                                               { return "" }
func (NoService) Stop(context.Context, string) error                                { return nil }
func (NoService) Close(context.Context) error                                       { return nil }
func (NoService) Approve(context.Context, string) error                             { return ErrPiMissing }
func (NoService) Approved(string) bool                                              { return false }
func (NoService) Events() *broker.Broker[Event]                                     { return nil }
func (NoService) FileGrew(string, int64, []byte)                                    {}
func (NoService) OwnSince(context.Context, string) (string, bool, error)            { return "", false, nil }
func (NoService) Rename(_ context.Context, _, _ string, offline func() error) error { return offline() }
func (NoService) Label(_ context.Context, _, _, _ string, offline func() error) error {
	return offline()
}
func (NoService) Create(context.Context, CreateRequest) (string, string, error) {
	return "", "", ErrPiMissing
}
func (NoService) Command(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, ErrPiMissing
}
func (NoService) Models(context.Context) (json.RawMessage, error) { return nil, ErrPiMissing }
