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
// back byte for byte). A family it does not know is an error; a part without a type is skipped.
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
		if !bytes.Equal(was.Bytes(), again) {
			return fmt.Errorf("%s %s as %v: encodes as\n%s\nwant\n%s", name, p.key, p.t, clip(again, was.Bytes()), clip(was.Bytes(), again))
		}
	}
	return nil
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
