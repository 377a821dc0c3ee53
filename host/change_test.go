package host

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// The catalog's fields: a server's lists, and what the host publishes of
// them. Maps among them are also written by index and delete.
var (
	catalogServerFields = []string{"live", "cached", "cachedExtras", "resources", "templates", "prompts"}
	catalogHostFields   = []string{"tools", "toolSrc", "names", "namesDirty", "toolsDirty", "toolsTimer", "index", "byKey", "departed", "shadowed"}
	catalogHostMaps     = []string{"names", "index", "byKey", "departed", "shadowed"}
)

// catalogWriters are the functions that may write the catalog's fields:
// the writer, the helpers it alone calls, and newServer, which fills a
// new entry's cached tools before anyone sees it.
var (
	catalogWriter  = "changeCatalogLocked"
	catalogHelpers = []string{"rebuildToolsLocked", "publishSoonLocked", "rebuildNamesLocked", "putLocked"}
	catalogBuilder = map[string][]string{"newServer": {"cached", "cachedExtras"}}
)

// TestCatalogHasOneWriter holds the rule of changeCatalogLocked
// (change.go): every change of the catalog goes through it, as every
// change of phase goes through transitionLocked. It reads the package's
// source: a field of the catalog assigned anywhere else, or a helper of
// the writer's called by anyone else, is a second writer, named here with
// its line. (It reads assignments by field name; a write through a
// pointer or a copy is not seen.)
func TestCatalogHasOneWriter(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	writerWrites := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				writerWrites += checkCatalogWrites(t, fset, fn)
			}
		}
	}
	if writerWrites == 0 {
		t.Errorf("%s writes none of the catalog's fields: is the test reading the right names?", catalogWriter)
	}
}

// checkCatalogWrites reports fn's writes of the catalog and calls of the
// writer's helpers that break the rule, and returns how many writes it
// makes as the writer or a helper.
func checkCatalogWrites(t *testing.T, fset *token.FileSet, fn *ast.FuncDecl) int {
	t.Helper()
	name := fn.Name.Name
	writer := name == catalogWriter || slices.Contains(catalogHelpers, name)
	writes := 0
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				field := catalogField(lhs)
				switch {
				case field == "":
				case writer:
					writes++
				case !slices.Contains(catalogBuilder[name], field):
					t.Errorf("%s: %s writes the catalog's %s; only %s may (change.go)", fset.Position(lhs.Pos()), name, field, catalogWriter)
				}
			}
		case *ast.CallExpr:
			if writer {
				break
			}
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "delete" && len(n.Args) > 0 {
				if sel, ok := n.Args[0].(*ast.SelectorExpr); ok && slices.Contains(catalogHostMaps, sel.Sel.Name) {
					t.Errorf("%s: %s deletes from the catalog's %s; only %s may", fset.Position(n.Pos()), name, sel.Sel.Name, catalogWriter)
				}
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && slices.Contains(catalogHelpers, sel.Sel.Name) {
				t.Errorf("%s: %s calls %s, which only %s may call", fset.Position(n.Pos()), name, sel.Sel.Name, catalogWriter)
			}
		}
		return true
	})
	return writes
}

// catalogField is the catalog field an assignment's left side writes, or "".
func catalogField(lhs ast.Expr) string {
	switch e := lhs.(type) {
	case *ast.SelectorExpr:
		if slices.Contains(catalogServerFields, e.Sel.Name) || slices.Contains(catalogHostFields, e.Sel.Name) {
			return e.Sel.Name
		}
	case *ast.IndexExpr:
		if sel, ok := e.X.(*ast.SelectorExpr); ok && slices.Contains(catalogHostMaps, sel.Sel.Name) {
			return sel.Sel.Name
		}
	}
	return ""
}
