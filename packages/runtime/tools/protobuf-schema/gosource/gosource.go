// Package gosource reads what the Go source of k8s.io/api says and reflection cannot: doc comments,
// +markers (+enum, +genclient, +listMapKey...) and the values declared for each enum type.
package gosource

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// Type is what the Go source (not reflection) tells about one named type: its doc, its
// markers (+enum, +genclient...), its fields' docs and markers, and for an enum its values.
type Type struct {
	Doc     string
	Markers []string
	Fields  map[string]Field
	Values  []string
}

// Field is a struct field's doc and markers.
type Field struct {
	Doc     string
	Markers []string
}

// Enum is the values of a +enum type, sorted; nil for any other type.
func (t *Type) Enum() []string {
	if _, ok := Marker(t.Markers, "enum"); !ok || len(t.Values) == 0 {
		return nil
	}
	return SortedUnique(t.Values)
}

// Read parses the Go files of each package (found with `go list`, in the module cache)
// and indexes their type declarations by "pkgpath.Name".
func Read(paths []string) (map[string]*Type, error) {
	out, err := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{.Dir}} {{join .GoFiles \",\"}}"}, paths...)...).Output()
	if err != nil {
		return nil, err
	}
	types := map[string]*Type{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, " ", 3)
		if len(parts) != 3 {
			continue
		}
		fset := token.NewFileSet()
		for _, name := range strings.Split(parts[2], ",") {
			file, err := parser.ParseFile(fset, parts[1]+"/"+name, nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			readFile(parts[0], file, types)
		}
	}
	return types, nil
}

func readFile(pkg string, file *ast.File, types map[string]*Type) {
	enumOf := map[string][]string{}
	prevEnd := token.NoPos
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok {
			prevEnd = decl.End()
			continue
		}
		switch gen.Tok {
		case token.TYPE:
			for _, spec := range gen.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil {
					doc = gen.Doc
				}
				// Markers such as +genclient often sit in a comment block of their own above the doc.
				var lines []string
				for _, group := range file.Comments {
					if group.Pos() > prevEnd && group.End() < gen.Pos() && group != doc {
						lines = append(lines, commentLines(group)...)
					}
				}
				lines = append(lines, commentLines(doc)...)
				src := &Type{Fields: map[string]Field{}}
				src.Doc, src.Markers = split(lines)
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, f := range st.Fields.List {
						fdoc, fmarkers := split(commentLines(f.Doc))
						for _, n := range f.Names {
							src.Fields[n.Name] = Field{fdoc, fmarkers}
						}
						if len(f.Names) == 0 {
							src.Fields[embeddedName(f.Type)] = Field{fdoc, fmarkers}
						}
					}
				}
				if earlier, ok := types[pkg+"."+ts.Name.Name]; ok {
					src.Values = earlier.Values // consts read from an earlier file
				}
				types[pkg+"."+ts.Name.Name] = src
			}
		case token.CONST:
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok || len(vs.Values) != len(vs.Names) {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							enumOf[id.Name] = append(enumOf[id.Name], s)
						}
					}
				}
			}
		}
		prevEnd = gen.End()
	}
	for name, values := range enumOf {
		if src, ok := types[pkg+"."+name]; ok {
			src.Values = append(src.Values, values...)
		} else {
			types[pkg+"."+name] = &Type{Fields: map[string]Field{}, Values: values}
		}
	}
}

func embeddedName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.StarExpr:
		return embeddedName(t.X)
	}
	return ""
}

func commentLines(group *ast.CommentGroup) []string {
	if group == nil {
		return nil
	}
	return strings.Split(strings.TrimRight(group.Text(), "\n"), "\n")
}

// split separates a comment's prose from its +markers; prose stops at a "---" line, below which
// k8s.io/api keeps notes for its own tooling.
func split(lines []string) (string, []string) {
	var prose, markers []string
	ended := false
	for _, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "+"):
			markers = append(markers, strings.TrimPrefix(trimmed, "+"))
		case trimmed == "---":
			ended = true
		case !ended && !strings.HasPrefix(trimmed, "TODO"):
			prose = append(prose, strings.TrimRight(line, " \t"))
		}
	}
	return strings.TrimSpace(strings.Join(prose, "\n")), markers
}

// Marker returns the value of marker name ("name=value" or bare "name") and whether it is present.
func Marker(markers []string, name string) (string, bool) {
	for _, m := range markers {
		if m == name {
			return "", true
		}
		if strings.HasPrefix(m, name+"=") {
			return strings.TrimPrefix(m, name+"="), true
		}
	}
	return "", false
}

// AllMarkers returns every value of a repeatable marker (+listMapKey=a, +listMapKey=b).
func AllMarkers(markers []string, name string) []string {
	var out []string
	for _, m := range markers {
		if strings.HasPrefix(m, name+"=") {
			out = append(out, strings.TrimPrefix(m, name+"="))
		}
	}
	return out
}

// SortedUnique keeps an enum's values in a stable order, each once.
func SortedUnique(values []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
