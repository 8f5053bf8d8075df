// Command protobuf-schema writes, as JSON, what the runtime needs to turn the protobuf encoding of
// every built-in kind into the object its JSON encoding would give: for each Go struct reachable
// from a kind, its fields in declaration order with their protobuf number, JSON name, value kind
// and the encoding/json rules (omitempty, pointer, inline) that decide what JSON shows.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes/scheme"

	"capstan.local/runtime/protobuf-schema/kinds"
)

// Field flags, as the runtime's decoder reads them.
const (
	repeated  = 1
	isMap     = 2
	omitEmpty = 4
	pointer   = 8
	inline    = 16
	omitZero  = 32
	typeMeta  = 64
	// managedFields marks ObjectMeta.ManagedFields, which a decoder may skip.
	managedFields = 128
)

// defaultedTypeMeta: lists of objects inside another object whose apiVersion and kind the server
// fills in (protobuf cannot carry them: TypeMeta has no protobuf tag).
var defaultedTypeMeta = map[string]string{
	"k8s.io/api/apps/v1.StatefulSetSpec.VolumeClaimTemplates":      "v1/PersistentVolumeClaim",
	"k8s.io/api/apps/v1beta1.StatefulSetSpec.VolumeClaimTemplates": "v1/PersistentVolumeClaim",
	"k8s.io/api/apps/v1beta2.StatefulSetSpec.VolumeClaimTemplates": "v1/PersistentVolumeClaim",
}

// Go types whose JSON is not their struct's fields: the decoder knows each by name.
var special = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":       "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":  "microtime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":   "duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":   "raw",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":    "raw",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":   "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString": "intorstring",
}

type generator struct {
	index    map[reflect.Type]int
	messages [][]any
	names    []string
	problems []string
}

func typeName(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

var jsonMarshaler = reflect.TypeOf((*json.Marshaler)(nil)).Elem()

// message returns the index of struct t's schema, adding it (and what it reaches) when new.
func (g *generator) message(t reflect.Type) int {
	if i, ok := g.index[t]; ok {
		return i
	}
	i := len(g.messages)
	g.index[t] = i
	g.messages = append(g.messages, nil)
	g.names = append(g.names, typeName(t))
	if reflect.PointerTo(t).Implements(jsonMarshaler) || t.Implements(jsonMarshaler) {
		g.problems = append(g.problems, typeName(t)+" has its own JSON encoding and no decoder kind")
	}
	fields := []any{}
	g.fields(t, &fields)
	g.messages[i] = fields
	return i
}

func (g *generator) fields(t reflect.Type, out *[]any) {
	for n := 0; n < t.NumField(); n++ {
		f := t.Field(n)
		jsonTag := f.Tag.Get("json")
		if jsonTag == "-" {
			continue
		}
		pb := f.Tag.Get("protobuf")
		parts := strings.Split(jsonTag, ",")
		name := parts[0]
		flags := 0
		for _, opt := range parts[1:] {
			switch opt {
			case "omitempty":
				flags |= omitEmpty
			case "omitzero":
				flags |= omitZero
			case "inline":
				flags |= inline
			}
		}
		if pb == "" {
			// TypeMeta travels in the envelope, not in the message.
			if f.Anonymous && f.Type.Name() == "TypeMeta" {
				continue
			}
			g.problems = append(g.problems, fmt.Sprintf("%s.%s has no protobuf tag", typeName(t), f.Name))
			continue
		}
		if name == "" && flags&inline == 0 {
			name = f.Name
		}
		number, err := strconv.Atoi(strings.Split(pb, ",")[1])
		if err != nil {
			g.problems = append(g.problems, fmt.Sprintf("%s.%s: protobuf tag %q", typeName(t), f.Name, pb))
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			flags |= pointer
			ft = ft.Elem()
		}
		var kind string
		ref := -1
		switch {
		case ft.Kind() == reflect.Map:
			if ft.Key().Kind() != reflect.String {
				g.problems = append(g.problems, fmt.Sprintf("%s.%s: map key %s", typeName(t), f.Name, ft.Key()))
			}
			flags |= isMap
			kind, ref = g.value(ft.Elem(), t, f.Name)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8 && !wrapper(ft):
			flags |= repeated
			kind, ref = g.value(ft.Elem(), t, f.Name)
		default:
			kind, ref = g.value(ft, t, f.Name)
		}
		if typeName(t) == "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta" && f.Name == "ManagedFields" {
			flags |= managedFields
		}
		meta, defaulted := defaultedTypeMeta[typeName(t)+"."+f.Name]
		if defaulted {
			flags |= typeMeta
		}
		entry := []any{number, name, kind, flags}
		if ref >= 0 || defaulted {
			entry = append(entry, ref)
		}
		if defaulted {
			entry = append(entry, meta)
		}
		*out = append(*out, entry)
	}
}

// wrapper: a named slice that protobuf carries as a message of one repeated field (ExtraValue).
func wrapper(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName("MarshalToSizedBuffer")
	return t.Kind() == reflect.Slice && t.Name() != "" && ok
}

// value names the decoder kind of one value (a field's, a list element's, a map value's).
func (g *generator) value(t reflect.Type, owner reflect.Type, field string) (string, int) {
	if t.Kind() == reflect.Pointer {
		g.problems = append(g.problems, fmt.Sprintf("%s.%s: pointer element", typeName(owner), field))
		t = t.Elem()
	}
	if k, ok := special[typeName(t)]; ok {
		return k, -1
	}
	if wrapper(t) {
		if t.Elem().Kind() != reflect.String {
			g.problems = append(g.problems, fmt.Sprintf("%s: wrapper of %s", typeName(t), t.Elem()))
		}
		return "strings", -1
	}
	switch t.Kind() {
	case reflect.String:
		return "string", -1
	case reflect.Bool:
		return "bool", -1
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int", -1
	case reflect.Float64:
		return "double", -1
	case reflect.Float32:
		return "float", -1
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes", -1
		}
	case reflect.Struct:
		return "message", g.message(t)
	}
	g.problems = append(g.problems, fmt.Sprintf("%s.%s: value type %s", typeName(owner), field, t))
	return "unknown", -1
}

// apiVersion names the k8s.io/api release the schema comes from.
var apiVersion = func() string {
	info, ok := debug.ReadBuildInfo()
	if ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/api" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}()

func main() {
	g := &generator{index: map[reflect.Type]int{}}
	byKind := map[string]int{}
	types := scheme.Scheme.AllKnownTypes()
	keys := make([]string, 0, len(types))
	for gvk := range types {
		if gvk.Version == "__internal" {
			continue
		}
		keys = append(keys, gvk.GroupVersion().String()+"/"+gvk.Kind)
	}
	sort.Strings(keys)
	for _, key := range keys {
		cut := strings.LastIndex(key, "/")
		gv, kind := key[:cut], key[cut+1:]
		for gvk, t := range types {
			if gvk.GroupVersion().String() == gv && gvk.Kind == kind {
				if _, ok := reflect.PointerTo(t).MethodByName("MarshalToSizedBuffer"); !ok || !kinds.Served(t, kind) {
					continue
				}
				byKind[key] = g.message(t)
			}
		}
	}
	if len(g.problems) > 0 {
		sort.Strings(g.problems)
		fmt.Fprintln(os.Stderr, strings.Join(g.problems, "\n"))
		os.Exit(1)
	}
	fmt.Printf("// Generated by tools/protobuf-schema from k8s.io/api %s: do not edit.\n", apiVersion)
	fmt.Printf("/** The Kubernetes release of these types: a newer server may send fields they lack. */\n")
	fmt.Printf("export const BUILTIN_KUBERNETES_VERSION = '%s';\n\n", kubernetesVersion(apiVersion))
	fmt.Printf("/** Kind (`apps/v1/Deployment`) to the index of its message in BUILTIN_MESSAGES, as JSON. */\n")
	fmt.Printf("export const BUILTIN_KINDS =\n  '%s';\n\n", quoted(byKind))
	fmt.Printf("/** Each message's fields as JSON, parsed only when a decode first needs that message. */\n")
	fmt.Printf("export const BUILTIN_MESSAGES = [\n")
	for _, fields := range g.messages {
		fmt.Printf("  '%s',\n", quoted(fields))
	}
	fmt.Printf("];\n")
}

// kubernetesVersion maps k8s.io/api v0.35.4 to Kubernetes 1.35.
func kubernetesVersion(module string) string {
	parts := strings.Split(strings.TrimPrefix(module, "v"), ".")
	if len(parts) < 2 || parts[0] != "0" {
		fmt.Fprintln(os.Stderr, "schema: k8s.io/api version", module, "is not v0.<minor>.<patch>")
		os.Exit(1)
	}
	return "1." + parts[1]
}

// quoted is v's JSON, checked to need no escaping inside a single-quoted TypeScript string.
func quoted(v any) string {
	text, err := json.Marshal(v)
	if err != nil || strings.ContainsAny(string(text), "'\\") {
		fmt.Fprintln(os.Stderr, "schema: cannot be written as a quoted string", err)
		os.Exit(1)
	}
	return string(text)
}
