package server

import (
	"net/http"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/push"
)

// Web Push through internal/push: the page subscribes with the VAPID
// public key, and attention events (internal/attention) are pushed to every
// subscription, so a closed tab or a phone hears that a run ended.

func (s *Server) pushService() (*push.Service, error) {
	if s.app.Push == nil {
		return nil, errs.Errorf(errs.Unsupported, "Web Push is not set up in this piweb")
	}
	return s.app.Push, nil
}

func (s *Server) getPushKey(w http.ResponseWriter, r *http.Request) error {
	p, err := s.pushService()
	if err != nil {
		return err
	}
	key, err := p.PublicKey()
	return answer(w, apitype.PushKey{PublicKey: key}, err)
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
	return answer(w, struct{}{}, p.Subscribe(r.Context(), sub))
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
	return answer(w, struct{}{}, p.Unsubscribe(body.Endpoint))
}
