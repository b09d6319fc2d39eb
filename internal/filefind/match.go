package filefind

import (
	"slices"
	"strings"

	"piweb/internal/apitype"
)

// Match returns the paths matching query, at most limit, best first. A
// query matches a path when its letters appear in it in order, case
// aside (spaces in the query are ignored); letters in the last part of
// the path (the file's name), at the start of a word and in a run count
// more, as does the name being or starting with the query. Ties go to
// the shallower, then the shorter path. An empty query matches every
// path: the top of the folder first. A query naming a folder of the list
// ("src/", "src/ma") looks inside it only, for what follows, as pi's
// editor does.
func (l *List) Match(query string, limit int) []apitype.FileMatch {
	q := strings.ToLower(strings.Join(strings.Fields(query), ""))
	if limit <= 0 {
		return []apitype.FileMatch{}
	}
	scope := ""
	if i := strings.LastIndexByte(q, '/'); i >= 0 && l.dirs[q[:i+1]] {
		scope, q = q[:i+1], q[i+1:]
	}
	var top []hit
	for i, p := range l.lower {
		if scope != "" {
			if len(p) == len(scope) || !strings.HasPrefix(p, scope) {
				continue
			}
			p = p[len(scope):]
		}
		s, ok := score(p, q)
		if !ok {
			continue
		}
		h := hit{i: i, score: s, depth: strings.Count(strings.TrimSuffix(p, "/"), "/")}
		if len(top) == limit && !better(l, h, top[len(top)-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, h, func(a, b hit) int {
			if better(l, a, b) {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, at, h)
		if len(top) > limit {
			top = top[:limit]
		}
	}
	out := make([]apitype.FileMatch, len(top))
	for i, h := range top {
		p := l.paths[h.i]
		out[i] = apitype.FileMatch{Path: p, Dir: strings.HasSuffix(p, "/")}
	}
	return out
}

type hit struct{ i, score, depth int }

// better orders hits: higher score, shallower, shorter, then by path.
func better(l *List, a, b hit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.depth != b.depth {
		return a.depth < b.depth
	}
	pa, pb := l.paths[a.i], l.paths[b.i]
	if len(pa) != len(pb) {
		return len(pa) < len(pb)
	}
	return pa < pb
}

// score is how well q (lower case, no spaces) matches p (lower case):
// the best of three alignments of its letters (the first one from the
// start, one inside the name, and q's last whole occurrence), with
// bonuses for the name being q (with or without its extension) or
// starting with it.
func score(p, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	name := strings.LastIndexByte(strings.TrimSuffix(p, "/"), '/') + 1
	best, ok := align(p, q, 0, name)
	if !ok {
		return 0, false
	}
	if s, ok := align(p, q, name, name); ok {
		best = max(best, s)
	}
	if i := strings.LastIndex(p, q); i >= 0 {
		s, _ := align(p, q, i, name)
		best = max(best, s)
	}
	base := strings.TrimSuffix(p[name:], "/")
	stem, _, _ := strings.Cut(base, ".")
	if base == q {
		best += 20
	} else if stem == q {
		best += 15
	} else if strings.HasPrefix(base, q) {
		best += 10
	}
	return best, true
}

// align matches q's letters in p from index from, each at its first place
// after the one before, and scores them: 1 each, more in a run, at a
// word's start, and at or after name.
func align(p, q string, from, name int) (int, bool) {
	score, at, run := 0, from-1, 0
	for j := 0; j < len(q); j++ {
		k := strings.IndexByte(p[at+1:], q[j])
		if k < 0 {
			return 0, false
		}
		i := at + 1 + k
		if j > 0 && k == 0 {
			run++
		} else {
			run = 0
		}
		score += 1 + run*2
		if i == 0 || strings.IndexByte("/_-. ", p[i-1]) >= 0 {
			score += 4
		}
		if i >= name {
			score += 2
		}
		at = i
	}
	return score, true
}
