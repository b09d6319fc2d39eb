package server

import (
	"net/http"

	"piweb/internal/apitype"
	"piweb/internal/push"
)

// Web Push through internal/push: the page subscribes with the VAPID
// public key, and attention events (live/attention.go) are pushed to every
// subscription, so a closed tab or a phone hears that a run ended.

func (s *Server) pushService() (*push.Service, error) {
	if s.opts.Push == nil {
		return nil, errorf(Unsupported, "Web Push is not set up in this piweb")
	}
	return s.opts.Push, nil
}

func (s *Server) getPushKey(w http.ResponseWriter, r *http.Request) error {
	p, err := s.pushService()
	if err != nil {
		return err
	}
	key, err := p.PublicKey()
	if err != nil {
		return wrap(Internal, err, "cannot make piweb's Web Push keys")
	}
	return ok(w, apitype.PushKey{PublicKey: key})
}

func (s *Server) pushSubscribe(w http.ResponseWriter, r *http.Request) error {
	p, err := s.pushService()
	if err != nil {
		return err
	}
	var sub push.Subscription
	if err := decodeBody(w, r, &sub, maxBody); err != nil {
		return err
	}
	if err := p.Subscribe(sub); err != nil {
		return wrap(Invalid, err, "the subscription needs an http(s) endpoint and its p256dh and auth keys")
	}
	return ok(w, struct{}{})
}

func (s *Server) pushUnsubscribe(w http.ResponseWriter, r *http.Request) error {
	p, err := s.pushService()
	if err != nil {
		return err
	}
	var body apitype.PushUnsubscribe
	if err := decodeBody(w, r, &body, maxBody); err != nil {
		return err
	}
	if err := p.Unsubscribe(body.Endpoint); err != nil {
		return wrap(Internal, err, "cannot save the push subscriptions")
	}
	return ok(w, struct{}{})
}
