// Package kinds says which of the scheme's kinds the runtime reads as protobuf, for the schema
// generator and the fixtures alike.
package kinds

import (
	"reflect"
	"strings"
)

// Served reports whether kind (Go type t) is an object or list a client reads (it has metadata),
// or the Status of an error: the options kinds every group registers are left out.
func Served(t reflect.Type, kind string) bool {
	if kind == "Status" {
		return t.PkgPath() == "k8s.io/apimachinery/pkg/apis/meta/v1"
	}
	f, ok := t.FieldByName("ObjectMeta")
	if !ok {
		f, ok = t.FieldByName("ListMeta")
	}
	return ok && strings.HasPrefix(f.Tag.Get("json"), "metadata")
}
