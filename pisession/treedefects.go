package pisession

import "fmt"

// link is what the structural check takes of an entry (findDefects,
// findCycles) without the entry: its id key, its parent's key ("" for
// none) and its line; orphan quotes its parentId when no entry before it
// had that id (an orphan unless one comes later).
type link struct {
	key, parent, orphan string
	line                int
}

// linkDefects are the problems findDefects and findCycles report for the
// entries of links, in the same order and words.
func linkDefects(links []link) []Problem {
	s := &Session{}
	byKey := make(map[string]int, len(links)) // the last entry of each key, as byID
	for i, l := range links {
		byKey[l.key] = i
	}
	seen := make(map[string]int, len(links))
	for _, l := range links {
		if l.key[0] != 's' {
			s.problem(l.line, MissingID, "entry has no string id")
		} else if line, dup := seen[l.key]; dup {
			s.problem(l.line, DuplicateID, fmt.Sprintf("id %q already used on line %d", clip(l.key[1:]), line))
		}
		seen[l.key] = l.line
		if _, found := byKey[l.parent]; l.parent != "" && !found {
			s.problem(l.line, Orphan, fmt.Sprintf("parent %s not found", l.orphan))
		}
	}
	linkCycles(s, links, byKey)
	return s.Problems
}

// linkCycles is findCycles over links.
func linkCycles(s *Session, links []link, byKey map[string]int) {
	parentOf := func(i int) int {
		if links[i].parent == "" {
			return -1
		}
		if p, found := byKey[links[i].parent]; found {
			return p
		}
		return -1
	}
	state := make([]uint8, len(links)) // 1 on current walk, 2 done
	var walk []int
	for i := range links {
		walk = walk[:0]
		cur := i
		for cur >= 0 && state[cur] == 0 {
			state[cur] = 1
			walk = append(walk, cur)
			cur = parentOf(cur)
		}
		if cur >= 0 && state[cur] == 1 {
			id := ""
			if k := links[cur].key; k[0] == 's' {
				id = k[1:]
			}
			s.problem(links[cur].line, Cycle, fmt.Sprintf("parent links of entry %q loop back to it", clip(id)))
		}
		for _, w := range walk {
			state[w] = 2
		}
	}
}
