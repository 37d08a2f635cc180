package family

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// RoundTrip decodes a result file's typed parts into its family's types, refusing a field the
// types do not have, and encodes them again: it says where the bytes differ from the file's (the
// types' order, omitempty and field names are the writer's, so a result the writer wrote comes
// back byte for byte). A part that holds an untyped value (the cold-start target's platform),
// which comes back as a map in key order, is compared as JSON values instead. A family it does
// not know is an error; a part without a type is skipped.
func RoundTrip(data []byte) error {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	var name string
	if err := json.Unmarshal(doc["family"], &name); err != nil {
		return fmt.Errorf("family: %w", err)
	}
	parts, ok := Families[name]
	if !ok {
		return fmt.Errorf("family %q: not in family.Families", name)
	}
	for _, p := range []struct {
		key string
		t   reflect.Type
	}{{"parameters", parts.Parameters}, {"target", parts.Target}, {"summary", parts.Summary}, {"trials", parts.Trials}} {
		if p.t == nil {
			continue
		}
		v := reflect.New(p.t)
		dec := json.NewDecoder(bytes.NewReader(doc[p.key]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			return fmt.Errorf("%s %s as %v: %w", name, p.key, p.t, err)
		}
		again, err := json.Marshal(v.Interface())
		if err != nil {
			return fmt.Errorf("%s %s: %w", name, p.key, err)
		}
		var was bytes.Buffer
		if err := json.Compact(&was, doc[p.key]); err != nil {
			return err
		}
		if holdsAny(p.t, map[reflect.Type]bool{}) {
			var w, a any
			if err := json.Unmarshal(was.Bytes(), &w); err != nil {
				return err
			}
			if err := json.Unmarshal(again, &a); err != nil {
				return err
			}
			if !reflect.DeepEqual(w, a) {
				return fmt.Errorf("%s %s as %v: encodes as\n%s\nwant\n%s", name, p.key, p.t, again, was.Bytes())
			}
			continue
		}
		if !bytes.Equal(was.Bytes(), again) {
			return fmt.Errorf("%s %s as %v: encodes as\n%s\nwant\n%s", name, p.key, p.t, clip(again, was.Bytes()), clip(was.Bytes(), again))
		}
	}
	return nil
}

// holdsAny says whether t has an interface anywhere in it.
func holdsAny(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return holdsAny(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsAny(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// clip is a from the first byte where it differs from b, with a little before it.
func clip(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from, to := max(0, i-80), min(len(a), i+120)
	return string(a[from:to])
}
