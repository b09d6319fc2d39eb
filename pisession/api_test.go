package pisession

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"piweb/internal/testkit"
)

// TestAPI holds the package to its compatibility promise (CHANGELOG.md):
// testdata/api.txt lists every exported name with its signature, and any
// difference fails. A line the diff shows removed or changed is a breaking
// change (a new major version); an added one is new API, to be written in
// the changelog. Either way: go test ./pisession -run TestAPI -update, and
// say it in CHANGELOG.md.
func TestAPI(t *testing.T) {
	testkit.Golden(t, filepath.Join("testdata", "api.txt"), strings.Join(exportedAPI(t, "."), "\n")+"\n")
}

// exportedAPI lists the exported declarations of the package in dir, one
// sorted line each: funcs and methods with their signatures, types with
// their underlying form (a struct's exported fields one line each),
// constants and variables by name and declared type.
func exportedAPI(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			out = append(out, declAPI(fset, d)...)
		}
	}
	slices.Sort(out)
	return out
}

func declAPI(fset *token.FileSet, d ast.Decl) []string {
	src := func(n ast.Node) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || (d.Recv != nil && !ast.IsExported(recvName(d.Recv))) {
			return nil
		}
		typ := &ast.FuncType{Params: unnamed(d.Type.Params), Results: unnamed(d.Type.Results)}
		return []string{src(&ast.FuncDecl{Recv: unnamed(d.Recv), Name: d.Name, Type: typ})}
	case *ast.GenDecl:
		var out []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, typeAPI(s, src)...)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() {
						l := d.Tok.String() + " " + n.Name
						if s.Type != nil {
							l += " " + src(s.Type)
						}
						out = append(out, l)
					}
				}
			}
		}
		return out
	}
	return nil
}

func typeAPI(s *ast.TypeSpec, src func(ast.Node) string) []string {
	if !s.Name.IsExported() {
		return nil
	}
	st, ok := s.Type.(*ast.StructType)
	if !ok {
		assign := ""
		if s.Assign.IsValid() {
			assign = "= "
		}
		return []string{"type " + s.Name.Name + " " + assign + src(s.Type)}
	}
	out := []string{"type " + s.Name.Name + " struct"}
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.IsExported() {
				out = append(out, "field "+s.Name.Name+"."+n.Name+" "+src(f.Type))
			}
		}
	}
	return out
}

// unnamed is a parameter list without its names (renaming a parameter or
// a receiver breaks no caller), one field per parameter.
func unnamed(fl *ast.FieldList) *ast.FieldList {
	if fl == nil {
		return nil
	}
	out := &ast.FieldList{}
	for _, f := range fl.List {
		for range max(1, len(f.Names)) {
			out.List = append(out.List, &ast.Field{Type: f.Type})
		}
	}
	return out
}

func recvName(r *ast.FieldList) string {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
