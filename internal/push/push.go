// Package push sends Web Push notifications (RFC 8030, payloads encrypted
// as RFC 8291 aes128gcm, signed with VAPID, RFC 8292) to the browsers that
// subscribed, so a closed tab or a phone hears that a run ended. The VAPID
// key pair and the subscriptions are kept under piweb's config dir, each
// file the user's alone (0600, folder 0700). Encryption and signing are
// github.com/SherClockHolmes/webpush-go's.
//
// A subscription the push service says is gone (404, 410) is dropped; a
// push service that cannot be reached is logged and the subscription kept.
//
// An endpoint is where piweb POSTs on every attention event, so only
// https endpoints on public hosts are accepted: no IP literal, no name
// that resolves to a loopback, private, link-local or multicast address,
// and every connection's address is checked again when it is made (a name
// rebound to such an address meanwhile is refused), unless
// Options.AllowLocal (tests' local push service).
package push

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"

	webpush "github.com/SherClockHolmes/webpush-go"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/opt"
	"piweb/internal/own"
)

// Subscription is a browser's PushSubscription.toJSON()
// (apitype.PushSubscription, where the API's shapes are defined).
type Subscription = apitype.PushSubscription

// Message is what the service worker shows (static/sw.js).
type Message struct {
	Title string `json:"title"`
	Body  string `json:"body,omitempty"`
	URL   string `json:"url,omitempty"`
	Tag   string `json:"tag,omitempty"`
}

// Options configure a Service.
type Options struct {
	// Log gets what could not be pushed; nil logs nothing.
	Log *slog.Logger
	// AllowLocal accepts http endpoints and any address (loopback,
	// private): the tests' local push service (pushtest).
	AllowLocal bool
	// LookupIP resolves an endpoint's host when a browser subscribes; nil
	// is net.DefaultResolver's.
	LookupIP func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Service holds the keys and subscriptions of one config dir.
type Service struct {
	dir    string
	client *http.Client
	log    *slog.Logger
	opts   Options

	mu   sync.Mutex
	keys keyPair
	subs []Subscription
}

type keyPair struct {
	Public  string `json:"publicKey"`
	Private string `json:"privateKey"`
}

// Open loads the VAPID keys and the subscriptions kept in dir, if any:
// nothing is written until the keys are first asked for (PublicKey) or a
// browser subscribes.
func Open(dir string, o Options) (*Service, error) {
	opt.Log(&o.Log)
	if o.LookupIP == nil {
		o.LookupIP = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	s := &Service{dir: dir, client: newClient(o.AllowLocal), log: o.Log, opts: o}
	if err := readJSON(s.keysPath(), &s.keys); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("VAPID keys: %w", err)
	}
	if err := readJSON(s.subsPath(), &s.subs); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("push subscriptions: %w", err)
	}
	return s, nil
}

func (s *Service) keysPath() string { return filepath.Join(s.dir, "vapid.json") }
func (s *Service) subsPath() string { return filepath.Join(s.dir, "push-subscriptions.json") }

// ensureKeys generates and saves the key pair the first time; s.mu held.
func (s *Service) ensureKeys() error {
	if s.keys.Public != "" && s.keys.Private != "" {
		return nil
	}
	priv, pub, err := webpush.GenerateVAPIDKeys()
	if err != nil {
		return err
	}
	if err := own.WritePrivateJSON(s.keysPath(), keyPair{Public: pub, Private: priv}); err != nil {
		return fmt.Errorf("save the VAPID keys: %w", err)
	}
	s.keys = keyPair{Public: pub, Private: priv}
	return nil
}

// PublicKey is the VAPID public key (base64url), the browser's
// applicationServerKey, generated and saved the first time.
func (s *Service) PublicKey() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensureKeys(); err != nil {
		return "", errs.E("push.PublicKey", "cannot make piweb's Web Push keys", err)
	}
	return s.keys.Public, nil
}

// badSubscription is the client's message for a subscription that cannot
// be used.
const badSubscription = "the subscription needs an https endpoint on a public host and its p256dh and auth keys"

// ErrBadSubscription is a subscription that cannot be used.
var ErrBadSubscription = errs.New(errs.Invalid, badSubscription,
	"push: the subscription needs an https endpoint on a public host and its keys")

// Subscribe adds (or renews) a browser's subscription.
func (s *Service) Subscribe(ctx context.Context, sub Subscription) error {
	if sub.Keys.P256dh == "" || sub.Keys.Auth == "" || len(sub.Endpoint) > 2048 {
		return ErrBadSubscription
	}
	if err := s.checkEndpoint(ctx, sub.Endpoint); err != nil {
		return errs.E("push.Subscribe", errs.Invalid, badSubscription, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = slices.DeleteFunc(s.subs, func(x Subscription) bool { return x.Endpoint == sub.Endpoint })
	s.subs = append(s.subs, sub)
	return s.saveSubs()
}

// Unsubscribe forgets the subscription with this endpoint.
func (s *Service) Unsubscribe(endpoint string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = slices.DeleteFunc(s.subs, func(x Subscription) bool { return x.Endpoint == endpoint })
	return s.saveSubs()
}

// saveSubs writes the subscriptions; s.mu is held. A failure says "cannot
// save the push subscriptions" to the client.
func (s *Service) saveSubs() error {
	if err := own.WritePrivateJSON(s.subsPath(), s.subs); err != nil {
		return errs.E("push.Subscribe", "cannot save the push subscriptions", err)
	}
	return nil
}

// Count is the number of subscriptions.
func (s *Service) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// Send pushes m to every subscription, dropping those the push service
// says are gone and logging those it cannot reach.
func (s *Service) Send(ctx context.Context, m Message) {
	payload, _ := json.Marshal(m)
	s.mu.Lock()
	subs, keys := slices.Clone(s.subs), s.keys
	s.mu.Unlock()
	if keys.Private == "" {
		return // no browser can have subscribed without the key
	}
	var gone []string
	for _, sub := range subs {
		if s.sendOne(ctx, payload, sub, keys) {
			gone = append(gone, sub.Endpoint)
		}
	}
	for _, e := range gone {
		if err := s.Unsubscribe(e); err != nil {
			s.log.Error("push: cannot forget an expired subscription", "err", err)
		}
	}
}

// sendOne pushes to one subscription and reports whether it is gone.
func (s *Service) sendOne(ctx context.Context, payload []byte, sub Subscription, keys keyPair) bool {
	ws := &webpush.Subscription{Endpoint: sub.Endpoint, Keys: webpush.Keys{P256dh: sub.Keys.P256dh, Auth: sub.Keys.Auth}}
	res, err := webpush.SendNotificationWithContext(ctx, payload, ws, &webpush.Options{
		HTTPClient: s.client, Subscriber: "https://github.com/piweb", TTL: 3600,
		VAPIDPublicKey: keys.Public, VAPIDPrivateKey: keys.Private, Urgency: webpush.UrgencyHigh,
	})
	if err != nil {
		s.log.Warn("push: service unreachable", "host", host(sub.Endpoint), "err", err)
		return false
	}
	defer res.Body.Close()
	io.Copy(io.Discard, io.LimitReader(res.Body, 4096))
	switch {
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusGone:
		return true
	case res.StatusCode >= 300:
		s.log.Warn("push: service refused", "host", host(sub.Endpoint), "status", res.Status)
	}
	return false
}

func host(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Host
	}
	return "?"
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
