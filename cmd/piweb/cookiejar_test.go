package main

import (
	"net/http"
	"net/url"
	"sync"
)

// cookieJar keeps every cookie for every host (tests only).
type cookieJar struct {
	mu sync.Mutex
	cs []*http.Cookie
}

func (j *cookieJar) SetCookies(_ *url.URL, cs []*http.Cookie) {
	j.mu.Lock()
	j.cs = append(j.cs, cs...)
	j.mu.Unlock()
}

func (j *cookieJar) Cookies(*url.URL) []*http.Cookie {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cs
}
