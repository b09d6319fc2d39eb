package pisession

// Load reads a file as pi's SessionManager.open sees it: migrated in memory,
// and empty when the file has no valid header (pi would replace such a
// file with a fresh one; Load only reports it, see Problems).
func Load(path string) (*Session, error) {
	s, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if s.Header == nil {
		s.Entries = nil
		s.byID, s.indexed = idTable{}, 0
	}
	return s, nil
}
