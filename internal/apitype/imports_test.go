package apitype

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestNoDomainImports keeps the API's shapes data only: apitype imports no
// piweb package but the public session format (whose shapes some answers
// are, docs/decisions/0044), and the typed client only apitype and errs,
// so that a program talking to piweb does not build its index, agent or
// store, and each wire shape has one definition (docs/decisions/0024).
func TestNoDomainImports(t *testing.T) {
	for dir, allowed := range map[string][]string{
		".":         {"piweb/pisession"},
		"../client": {"piweb/internal/apitype", "piweb/internal/errs"},
	} {
		p, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "piweb/") && !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s", p.ImportPath, imp)
			}
		}
	}
}
