package runconfig

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Keys lists every key of a configuration as a file or a query names it: the JSON names,
// dot paths into its objects ("seed", "transformer.Layers", "tunnel.k"), in field order.
func Keys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for _, f := range jsonFields(t) {
			if st, ok := structType(f.typ); ok && st != configType {
				walk(st, prefix+f.name+".")
				continue
			}
			keys = append(keys, prefix+f.name)
		}
	}
	walk(configType, "")
	return keys
}

// Lookup is c's value at a key (a dot path of JSON names, matched ignoring case, as
// encoding/json matches them): a float64 for a number, the text of a string, the JSON of
// anything else (a list, an object); false for a key c does not have.
func Lookup(c Config, path string) (any, bool) {
	v := reflect.ValueOf(c)
	for _, k := range strings.Split(path, ".") {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil, false
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, false
		}
		f, ok := fieldNamed(jsonFields(v.Type()), k)
		if !ok {
			return nil, false
		}
		v = v.Field(f.index)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.String:
		return v.String(), true
	}
	b, err := json.Marshal(v.Interface())
	return string(b), err == nil
}
