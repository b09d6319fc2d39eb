package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// route is one registration of routes.go: a method ("" for any) and a
// ServeMux path pattern.
type route struct{ method, path string }

func (r route) String() string { return strings.TrimSpace(r.method + " " + r.path) }

// mutating reports whether the route changes state, so the guard must
// check its Origin and Content-Type.
func (r route) mutating() bool { return r.method != "" && !isSafeMethod(r.method) }

// apiRoutes reads the patterns registered in routes.go, so that tests
// iterate over the real API surface rather than a copy of it that could
// fall behind. The catch-alls ("/api/" and the web app at "/") are left
// out.
func apiRoutes(t *testing.T) []route {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []route
	ast.Inspect(f, func(n ast.Node) bool {
		call, isCall := n.(*ast.CallExpr)
		if !isCall || len(call.Args) == 0 || !registers(call.Fun) {
			return true
		}
		lit, isLit := call.Args[0].(*ast.BasicLit)
		if !isLit || lit.Kind != token.STRING {
			return true
		}
		pattern, _ := strconv.Unquote(lit.Value)
		method, path, found := strings.Cut(pattern, " ")
		if !found {
			method, path = "", pattern
		}
		if path != "/api/" && path != "/" {
			out = append(out, route{method, path})
		}
		return true
	})
	if len(out) < 20 {
		t.Fatalf("found only %d routes in routes.go: %v", len(out), out)
	}
	return out
}

// registers tells the calls that register a route: routes.go's h helper
// and the mux's own Handle and HandleFunc.
func registers(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "h"
	case *ast.SelectorExpr:
		return f.Sel.Name == "Handle" || f.Sel.Name == "HandleFunc"
	}
	return false
}

// docRoute finds "METHOD /path" in docs/api.md's code spans, the path
// ending before a query string.
var docRoute = regexp.MustCompile("`(GET|HEAD|POST|PUT|PATCH|DELETE) (/[^`?\\s]*)")

// TestAPIDocMatchesRoutes: docs/api.md documents every route of
// routes.go, and documents no route that does not exist, so the contract
// outside checks read cannot drift from the code.
func TestAPIDocMatchesRoutes(t *testing.T) {
	doc := testkit.ReadFile(t, "../../docs/api.md")
	routes := apiRoutes(t)
	documented := map[string]bool{}
	for _, m := range docRoute.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]+" "+m[2]] = true
	}
	for _, r := range routes {
		if !documented[r.String()] {
			t.Errorf("route %s is not documented in docs/api.md", r)
		}
	}
	known := map[string]bool{"GET /": true} // the web app
	for _, r := range routes {
		known[r.String()] = true
	}
	var stale []string
	for d := range documented {
		if !known[d] {
			stale = append(stale, d)
		}
	}
	slices.Sort(stale)
	for _, d := range stale {
		t.Errorf("docs/api.md documents %s, which routes.go does not register", d)
	}
}
