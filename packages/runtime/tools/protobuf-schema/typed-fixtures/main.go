// Command typed-fixtures prints a random object of every kind of k8s.io/api as encoding/json (and
// so the apiserver) writes it, every field set and each +enum field holding one of its declared
// values, one JSON line per object: {"module": "apps/v1", "kind": "Deployment", "json": <object>}.
// The runtime's tests compile them against the generated TypeScript types.
//
//	typed-fixtures <seed> <objects per kind>
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"

	"capstan.local/runtime/protobuf-schema/gosource"
	"capstan.local/runtime/protobuf-schema/kinds"
)

const apiPrefix = "k8s.io/api/"

type kind struct {
	gvk schema.GroupVersionKind
	t   reflect.Type
}

func main() {
	seed, _ := strconv.ParseInt(os.Args[1], 10, 64)
	count, _ := strconv.Atoi(os.Args[2])
	var all []kind
	pkgs := map[string]bool{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == "__internal" || !strings.HasPrefix(t.PkgPath(), apiPrefix) || !kinds.Served(t, gvk.Kind) ||
			strings.HasSuffix(gvk.Kind, "List") {
			continue
		}
		all = append(all, kind{gvk, t})
		pkgs[t.PkgPath()] = true
	}
	sort.Slice(all, func(i, j int) bool { return all[i].gvk.String() < all[j].gvk.String() })
	paths := []string{"k8s.io/apimachinery/pkg/apis/meta/v1"}
	for p := range pkgs {
		paths = append(paths, p)
	}
	sources, err := gosource.Read(paths)
	if err != nil {
		fmt.Fprintln(os.Stderr, "typed-fixtures: reading the Go sources:", err)
		os.Exit(1)
	}
	enums := map[string][]string{}
	for name, src := range sources {
		if values := src.Enum(); values != nil {
			enums[name] = values
		}
	}
	r := rand.New(rand.NewSource(seed))
	filler := randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 1).MaxDepth(30).Funcs(
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.NewTime(time.Unix(int64(c.Uint64()%4e9), 0)) },
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(time.Unix(int64(c.Uint64()%4e9), int64(c.Uint64()%1e6)*1000))
		},
		func(d *metav1.Duration, c randfill.Continue) { d.Duration = time.Duration(c.Uint64() % 1e15) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(int64(c.Uint64()%1e9), resource.DecimalSI)
		},
		func(v *intstr.IntOrString, c randfill.Continue) {
			if c.Bool() {
				*v = intstr.FromInt32(int32(c.Uint64()))
			} else {
				*v = intstr.FromString(c.String(8))
			}
		},
		func(e *runtime.RawExtension, c randfill.Continue) { e.Raw = []byte(`{"a":[1,"x",null,{"b":true}]}`) },
		func(f *metav1.FieldsV1, c randfill.Continue) { f.Raw = []byte(`{"f:metadata":{"f:labels":{}}}`) },
	)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for _, k := range all {
		for n := 0; n < count; n++ {
			object := reflect.New(k.t)
			filler.Fill(object.Interface())
			setEnums(object.Elem(), enums, r)
			if typed, ok := object.Interface().(runtime.Object); ok {
				typed.GetObjectKind().SetGroupVersionKind(k.gvk)
			}
			text, err := json.Marshal(object.Interface())
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", k.gvk, err)
				os.Exit(1)
			}
			line, _ := json.Marshal(map[string]any{
				"module": strings.TrimPrefix(k.t.PkgPath(), apiPrefix),
				"kind":   k.gvk.Kind,
				"json":   json.RawMessage(text),
			})
			out.Write(line)
			out.WriteString("\n")
		}
	}
}

// setEnums gives every string of a +enum type, at any depth, one of its declared values, and
// every other empty string a value: the server refuses an empty required field, so it never
// sends one omitted (omitempty) where the types say it is there.
func setEnums(v reflect.Value, enums map[string][]string, r *rand.Rand) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			setEnums(v.Elem(), enums, r)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				setEnums(v.Field(i), enums, r)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			for i := 0; i < v.Len(); i++ {
				setEnums(v.Index(i), enums, r)
			}
		}
	case reflect.Map:
		for _, key := range v.MapKeys() {
			elem := reflect.New(v.Type().Elem()).Elem()
			elem.Set(v.MapIndex(key))
			setEnums(elem, enums, r)
			v.SetMapIndex(key, elem)
		}
	case reflect.String:
		if !v.CanSet() {
			return
		}
		if values, ok := enums[v.Type().PkgPath()+"."+v.Type().Name()]; ok {
			v.SetString(values[r.Intn(len(values))])
		} else if v.Len() == 0 {
			v.SetString("x")
		}
	}
}
