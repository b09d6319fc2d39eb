package server

import "piweb/internal/catalog"

// The catalog's types, named here for the handlers.
type (
	Meta        = catalog.Meta
	ListQuery   = catalog.ListQuery
	SearchQuery = catalog.SearchQuery
	Hit         = catalog.Hit
	Change      = catalog.Change
	UsageRow    = catalog.UsageRow
	UsageQuery  = catalog.UsageQuery
)

// item builds the JSON form of m, resolving the parent's id through the
// catalog.
func (s *Server) item(m Meta) catalog.Item { return s.live.Item(m) }
