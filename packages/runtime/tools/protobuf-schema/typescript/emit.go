package main

import (
	"fmt"
	"reflect"
	"strings"

	"capstan.local/runtime/protobuf-schema/gosource"
)

// tsFile collects one group/version's declarations.
type tsFile struct {
	groupVersion string
	decls        map[string]string
	imports      map[string]bool
	uses         map[string]bool
	descriptors  bool
}

type generator struct {
	sources  map[string]*gosource.Type
	files    map[string]*tsFile
	done     map[reflect.Type]bool
	problems []string
}

func newGenerator(sources map[string]*gosource.Type) *generator {
	return &generator{sources: sources, files: map[string]*tsFile{}, done: map[reflect.Type]bool{}}
}

func typeName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

func (g *generator) file(pkg string) *tsFile {
	name := fileOf(pkg)
	f, ok := g.files[name]
	if !ok {
		f = &tsFile{decls: map[string]string{}, imports: map[string]bool{}, uses: map[string]bool{}}
		g.files[name] = f
	}
	return f
}

func (g *generator) source(t reflect.Type) *gosource.Type {
	if src, ok := g.sources[typeName(t)]; ok {
		return src
	}
	return &gosource.Type{Fields: map[string]gosource.Field{}}
}

// kind declares a kind's interface (with apiVersion and kind as literals) and, when client-gen
// makes a client for it, its resource descriptor.
func (g *generator) kind(k kind) {
	gv := k.version
	if k.group != "" {
		gv = k.group + "/" + k.version
	}
	f := g.file(k.t.PkgPath())
	f.groupVersion = gv
	g.done[k.t] = true
	src := g.source(k.t)
	_, isObject := k.t.FieldByName("ObjectMeta")
	var b strings.Builder
	b.WriteString(docComment(src.Doc, ""))
	if isObject {
		f.uses["KubeObject"] = true
		fmt.Fprintf(&b, "export interface %s extends KubeObject {\n", k.name)
	} else {
		fmt.Fprintf(&b, "export interface %s {\n", k.name)
	}
	// Strings, not literals: a function of KubeObject must still accept the kind.
	fmt.Fprintf(&b, "  /** `%s` */\n  apiVersion?: string;\n  /** `%s` */\n  kind?: string;\n", gv, k.name)
	g.fields(k.t, f, &b, isObject)
	b.WriteString("}\n")
	_, client := gosource.Marker(src.Markers, "genclient")
	_, noVerbs := gosource.Marker(src.Markers, "genclient:noVerbs")
	if client && !noVerbs && isObject {
		f.descriptors = true
		_, cluster := gosource.Marker(src.Markers, "genclient:nonNamespaced")
		plural, ok := gosource.Marker(src.Markers, "resourceName")
		if !ok {
			plural = pluralOf(k.name)
		}
		scope := "namespaced"
		if cluster {
			scope = "cluster-scoped"
		}
		fmt.Fprintf(&b, "/** %s (`%s`, %s): the resource the client, caches and controllers take. */\n", plural, gv, scope)
		fmt.Fprintf(&b, "export const %s = defineResource<%s>({\n", k.name, k.name)
		fmt.Fprintf(&b, "  group: '%s',\n  version: '%s',\n  kind: '%s',\n  plural: '%s',\n  namespaced: %t,\n});\n",
			k.group, k.version, k.name, plural, !cluster)
	}
	f.decls[k.name] = b.String()
}

// pluralOf lower-cases and pluralises a kind as client-gen's namer does (Endpoints stays).
func pluralOf(kind string) string {
	lower := strings.ToLower(kind)
	switch {
	case kind == "Endpoints":
		return lower
	case strings.HasSuffix(lower, "s") || strings.HasSuffix(lower, "x") || strings.HasSuffix(lower, "z") ||
		strings.HasSuffix(lower, "ch") || strings.HasSuffix(lower, "sh"):
		return lower + "es"
	case strings.HasSuffix(lower, "y") && !strings.ContainsAny(lower[len(lower)-2:len(lower)-1], "aeiou"):
		return lower[:len(lower)-1] + "ies"
	}
	return lower + "s"
}

// named declares struct t (and what it reaches) once, in its package's file.
func (g *generator) named(t reflect.Type) {
	if g.done[t] {
		return
	}
	g.done[t] = true
	f := g.file(t.PkgPath())
	src := g.source(t)
	var b strings.Builder
	b.WriteString(docComment(src.Doc, ""))
	var bases []string
	for n := 0; n < t.NumField(); n++ {
		sf := t.Field(n)
		if sf.Anonymous && jsonName(sf) == "" && sf.Name != "TypeMeta" {
			bases = append(bases, g.ref(sf.Type, f))
		}
	}
	fmt.Fprintf(&b, "export interface %s", t.Name())
	if len(bases) > 0 {
		fmt.Fprintf(&b, " extends %s", strings.Join(bases, ", "))
	}
	b.WriteString(" {\n")
	if _, ok := t.FieldByName("TypeMeta"); ok {
		// A kind's options embedded in another (Eviction's DeleteOptions) may name their own kind.
		b.WriteString("  apiVersion?: string;\n  kind?: string;\n")
	}
	g.fields(t, f, &b, false)
	b.WriteString("}\n")
	f.decls[t.Name()] = b.String()
}

func jsonName(sf reflect.StructField) string {
	return strings.Split(sf.Tag.Get("json"), ",")[0]
}

// fields writes struct t's own fields (embedded ones come through extends).
func (g *generator) fields(t reflect.Type, f *tsFile, b *strings.Builder, object bool) {
	src := g.source(t)
	for n := 0; n < t.NumField(); n++ {
		sf := t.Field(n)
		tag := sf.Tag.Get("json")
		name := jsonName(sf)
		if tag == "-" || sf.Name == "TypeMeta" || (sf.Anonymous && name == "") {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fs := src.Fields[sf.Name]
		optional := strings.Contains(tag, ",omitempty") || strings.Contains(tag, ",omitzero") || sf.Type.Kind() == reflect.Pointer
		if _, ok := gosource.Marker(fs.Markers, "optional"); ok {
			optional = true
		}
		if _, ok := gosource.Marker(fs.Markers, "required"); ok {
			optional = false
		}
		if object && name == "metadata" {
			optional = false // KubeObject's: every object the client hands over has metadata
		}
		typ := g.fieldType(sf, fs, f)
		// encoding/json writes an unset slice, map or pointer without omitempty as null.
		omits := strings.Contains(tag, ",omitempty") || strings.Contains(tag, ",omitzero")
		if k := sf.Type.Kind(); optional && !omits && (k == reflect.Slice && sf.Type.Elem().Kind() != reflect.Uint8 || k == reflect.Map || k == reflect.Pointer) {
			typ += " | null"
		} else if isTime(sf.Type) && !strings.Contains(tag, ",omitzero") {
			typ += " | null" // a zero Time is written as null: omitempty does not omit a struct
		}
		b.WriteString(docComment(fs.Doc, "  "))
		q := ""
		if optional {
			q = "?"
		}
		fmt.Fprintf(b, "  %s%s: %s;\n", quoteName(name), q, typ)
	}
}

// isTime: metav1.Time or MicroTime held by value, whose zero value's JSON is null.
func isTime(t reflect.Type) bool {
	name := typeName(t)
	return name == metaPkg+".Time" || name == metaPkg+".MicroTime"
}

func quoteName(name string) string {
	for _, r := range name {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return "'" + name + "'"
		}
	}
	return name
}

// fieldType is a field's TypeScript type; a list with map keys becomes a KeyedList.
func (g *generator) fieldType(sf reflect.StructField, fs gosource.Field, f *tsFile) string {
	t := sf.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct && special[typeName(t.Elem())] == "" {
		keys := gosource.AllMarkers(fs.Markers, "listMapKey")
		if lt, _ := gosource.Marker(fs.Markers, "listType"); lt != "map" && lt != "" {
			keys = nil
		} else if len(keys) == 0 && lt == "" {
			if k := sf.Tag.Get("patchMergeKey"); k != "" && sf.Tag.Get("patchStrategy") == "merge" {
				keys = []string{k}
			}
		}
		if len(keys) > 0 {
			f.uses["KeyedList"] = true
			quoted := make([]string, len(keys))
			for i, k := range keys {
				quoted[i] = "'" + k + "'"
			}
			return fmt.Sprintf("KeyedList<%s, %s>", g.ref(t.Elem(), f), strings.Join(quoted, " | "))
		}
	}
	return g.ref(t, f)
}

// ref is how file f names type t, declaring t when it is a struct or an enum of k8s.io/api.
func (g *generator) ref(t reflect.Type, f *tsFile) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if ts, ok := special[typeName(t)]; ok {
		if ts == "ObjectMeta" {
			f.uses["ObjectMeta"] = true
		}
		return ts
	}
	switch t.Kind() {
	case reflect.Struct:
		g.named(t)
		return g.qualified(t, f)
	case reflect.String:
		if t.Name() != "" && t.PkgPath() != "" {
			if src := g.source(t); len(src.Values) > 0 {
				if _, ok := gosource.Marker(src.Markers, "enum"); ok {
					g.enum(t, src)
					return g.qualified(t, f)
				}
			}
		}
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return g.ref(t.Elem(), f) + "[]"
	case reflect.Map:
		return "Record<string, " + g.ref(t.Elem(), f) + ">"
	case reflect.Interface:
		return "unknown"
	}
	g.problems = append(g.problems, fmt.Sprintf("%s: no TypeScript type", typeName(t)))
	return "unknown"
}

func (g *generator) qualified(t reflect.Type, f *tsFile) string {
	other := fileOf(t.PkgPath())
	if g.files[other] == f {
		return t.Name()
	}
	f.imports[other] = true
	return alias(other) + "." + t.Name()
}

// enum declares a +enum string type as the union of its declared values.
func (g *generator) enum(t reflect.Type, src *gosource.Type) {
	if g.done[t] {
		return
	}
	g.done[t] = true
	values := gosource.SortedUnique(src.Values)
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = "'" + strings.ReplaceAll(v, "'", "\\'") + "'"
	}
	g.file(t.PkgPath()).decls[t.Name()] = docComment(src.Doc, "") +
		fmt.Sprintf("export type %s = %s;\n", t.Name(), strings.Join(quoted, " | "))
}

// docComment renders Go prose as TSDoc; an at sign or a comment end in the prose is escaped.
func docComment(doc string, indent string) string {
	if doc == "" {
		return ""
	}
	doc = strings.NewReplacer("*/", "*\\/", "@", "\\@", "{", "\\{", "}", "\\}").Replace(doc)
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, line := range strings.Split(doc, "\n") {
		b.WriteString(strings.TrimRight(indent+" * "+line, " ") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}
