package family

import (
	"reflect"
	"slices"
	"sort"
	"strings"
)

// goField is a struct field as encoding/json writes it.
type goField struct {
	name      string
	t         reflect.Type
	omitempty bool
	goName    string
}

// jsonFields are t's fields as encoding/json sees them: embedded structs without a tag
// flattened, "-" left out. (A shallower field hides a deeper one of the same name.)
func jsonFields(t reflect.Type) []goField {
	var out []goField
	seen := map[string]bool{}
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		var deeper []reflect.StructField
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					deeper = append(deeper, f)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !seen[name] {
				seen[name] = true
				out = append(out, goField{name: name, t: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty"), goName: prefix + f.Name})
			}
		}
		for _, f := range deeper {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			walk(ft, prefix+f.Name+".")
		}
	}
	walk(t, t.Name()+".")
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
