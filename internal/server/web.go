package server

import "net/http"

// placeholder is served at / when no web app is linked in.
const placeholder = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>piweb</title></head>
<body><h1>piweb</h1><p>The web app is not built into this binary. The API is at <a href="/api/sessions">/api/sessions</a>.</p></body></html>`

func (s *Server) webHandler() http.Handler {
	if s.web != nil {
		return s.web
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(placeholder))
	})
}
