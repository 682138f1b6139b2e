package runconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"

	"windtunnel/backends/untrusted"
	"windtunnel/models/arch"
	"windtunnel/tunnels"
)

// maxConfigFile bounds a configuration file (a configuration is a few hundred bytes); its
// nesting is bounded by MaxDepth.
const maxConfigFile = 1 << 20

// Source is what a run starts from before its flags (Build): a configuration file
// (ReadFile, run --config) or a recorded run's stored configuration (Like, run --like).
type Source struct {
	// Name is how errors name it: "--config FILE" or "--like SESSION".
	Name string
	// values are the file's keys, renamed to the configuration's JSON names (dot paths
	// into its objects), nested as in the file; nil for a recorded run.
	values map[string]any
	// like is the recorded configuration: complete, nothing comes from a preset.
	like *Config
}

// Like is the source of a recorded run's configuration c (its session named name).
func Like(name string, c Config) *Source {
	return &Source{Name: "--like " + name, like: &c}
}

// configType is the type a configuration file fills, whose JSON keys it uses.
var configType = reflect.TypeFor[Config]()

// ReadFile reads a TOML (.toml), YAML (.yaml, .yml) or JSON (.json) configuration file and
// checks its keys against the configuration's: an unknown key is an error naming it and
// the closest known one. Keys match the configuration's JSON names as encoding/json does
// (case-insensitively) and are kept renamed to them. Every error names the file
// ("--config FILE: ...").
func ReadFile(path string) (*Source, error) {
	name := "--config " + path
	b, err := ReadUserFile(path, maxConfigFile)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("%s: %v", name, pe.Err)
	case err != nil:
		return nil, fmt.Errorf("--config %v: not a configuration", err)
	}
	var m map[string]any
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".toml":
		if d := TOMLDepth(b); d > MaxDepth {
			return nil, fmt.Errorf("%s: arrays, tables or dotted keys nested %d deep: not a configuration (at most %d)", name, d, MaxDepth)
		}
		if _, err = toml.Decode(string(b), &m); err != nil {
			return nil, fmt.Errorf("%s: not valid TOML: %v", name, err)
		}
	case ".yaml", ".yml":
		if err = yaml.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: not valid YAML: %v", name, err)
		}
	case ".json":
		if err = untrusted.CheckJSON(b); err != nil {
			return nil, fmt.Errorf("%s: not valid JSON: %v", name, err)
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err = d.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s: not valid JSON: %v", name, err)
		}
	default:
		return nil, fmt.Errorf("%s: want a .toml, .yaml, .yml or .json file, not %q", name, ext)
	}
	values, err := canonicalKeys(m, configType, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &Source{Name: name, values: values}, nil
}

// jsonField is a struct field as encoding/json names it.
type jsonField struct {
	name  string
	index int
	typ   reflect.Type
}

// jsonFields lists the fields of struct type t that encoding/json encodes, under its names.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		out = append(out, jsonField{name: name, index: i, typ: sf.Type})
	}
	return out
}

// fieldNamed finds the field encoding/json would fill for key: the exact name, else one
// equal to it ignoring case.
func fieldNamed(fields []jsonField, key string) (jsonField, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return jsonField{}, false
}

// structType is t, or its element for a pointer, when it is a struct encoding/json walks
// into (no custom unmarshalling of its own other than the configuration's).
func structType(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || (t != configType && reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]())) {
		return nil, false
	}
	return t, true
}

// canonicalKeys checks the keys of m (an object decoded from a file) against struct type t
// and returns m with each key renamed to the field's JSON name; prefix is the dot path of m.
func canonicalKeys(m map[string]any, t reflect.Type, prefix string) (map[string]any, error) {
	fields := jsonFields(t)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]any, len(m))
	for _, k := range keys {
		f, ok := fieldNamed(fields, k)
		if !ok {
			return nil, fmt.Errorf("unknown key %q%s", prefix+k, suggestPath(prefix, k, names))
		}
		if _, dup := out[f.name]; dup {
			return nil, fmt.Errorf("key %q given twice (as %q and another spelling)", prefix+f.name, prefix+k)
		}
		v := m[k]
		if sub, ok := v.(map[string]any); ok {
			st, walk := structType(f.typ)
			if !walk {
				return nil, fmt.Errorf("key %q: a table, want a value", prefix+f.name)
			}
			c, err := canonicalKeys(sub, st, prefix+f.name+".")
			if err != nil {
				return nil, err
			}
			v = c
		}
		out[f.name] = v
	}
	return out, nil
}

// suggestPath names the closest of names to a key under prefix: ` (did you mean "x"?)`, or "".
func suggestPath(prefix, key string, names []string) string {
	if s := Closest(key, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", prefix+s)
	}
	return ""
}

// Has reports whether the source gives the key at the dot path (JSON names): every key of
// a recorded configuration, the keys written in a file; false for a nil source.
func (s *Source) Has(path string) bool {
	if s == nil {
		return false
	}
	if s.like != nil {
		return true
	}
	var v any = s.values
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		found := false
		for mk, mv := range m {
			if strings.EqualFold(mk, k) {
				v, found = mv, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Text is the source's string value at a top-level key ("", false when absent or not text).
func (s *Source) Text(key string) (string, bool) {
	switch {
	case s == nil:
		return "", false
	case s.like != nil:
		v := reflect.ValueOf(*s.like)
		for _, f := range jsonFields(configType) {
			if f.name == key && f.typ.Kind() == reflect.String {
				return v.Field(f.index).String(), true
			}
		}
		return "", false
	}
	str, ok := s.values[key].(string)
	return str, ok
}

// Apply returns base with the source's values in place of its own: the recorded
// configuration, or base with the file's keys overridden (the objects merged key by key).
// A value of the wrong type is an error naming its key.
func (s *Source) Apply(base Config) (Config, error) {
	if s.like != nil {
		return *s.like, nil
	}
	b, err := json.Marshal(base)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", s.Name, err)
	}
	var merged map[string]any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&merged); err != nil {
		return Config{}, fmt.Errorf("%s: %w", s.Name, err)
	}
	mergeValues(merged, s.values)
	if b, err = json.Marshal(merged); err != nil {
		return Config{}, fmt.Errorf("%s: %v", s.Name, err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Config{}, fmt.Errorf("%s: key %q: a %s, want %s", s.Name, te.Field, te.Value, jsonKind(te.Type))
		}
		return Config{}, fmt.Errorf("%s: %v", s.Name, err)
	}
	return c, nil
}

// mergeValues writes src's values over dst's, key by key into objects both hold.
func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sub, ok := v.(map[string]any); ok {
			if d, ok := dst[k].(map[string]any); ok {
				mergeValues(d, sub)
				continue
			}
		}
		dst[k] = v
	}
}

// jsonKind describes the values of a Go type for a configuration-file message.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number ≥ 0"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(jsonKind(t.Elem()), "a ")
	case reflect.Struct, reflect.Map:
		return "a table"
	}
	return t.String()
}

// FieldError is a configuration error (a *arch.FieldError) as the source's: its name, the
// field's key in a configuration file, the value and the reason.
func (s *Source) FieldError(fe *arch.FieldError) error {
	return fmt.Errorf("%s: %s %s: %s", s.Name, FileKey(fe.Field), ValueText(fe.Value), FileReason(fe.Reason))
}

// ValueText is a setting's value as an error message quotes it: text in quotes, the rest
// as Go prints it.
func ValueText(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// FileKey turns a configuration field's Go path ("Transformer.Heads") into its key in a
// configuration file (the JSON names: "transformer.Heads"); a part it cannot find stays.
func FileKey(goPath string) string {
	t := configType
	var out []string
	for _, part := range strings.Split(goPath, ".") {
		name := part
		if t != nil {
			if sf, ok := t.FieldByName(part); ok {
				for _, f := range jsonFields(t) {
					if f.index == sf.Index[0] && len(sf.Index) == 1 {
						name = f.name
					}
				}
				t, _ = structType(sf.Type)
			} else {
				t = nil
			}
		}
		out = append(out, name)
	}
	return strings.Join(out, ".")
}

// TunnelError is a tunnel size out of range (tunnels.New's *tunnels.ParamError) as the
// source's: its name, the size's key in a configuration file, the value and the range.
func (s *Source) TunnelError(pe *tunnels.ParamError) error {
	return fmt.Errorf("%s: %s %d: %s %s must be in %d..%d", s.Name, FileKey("Tunnel."+tunnelField(pe.Param)), pe.Value, pe.Task, pe.Param, pe.Min, pe.Max)
}

// tunnelField is the tunnels.Config field a tunnel parameter (its flag name) sets.
func tunnelField(param string) string {
	t := reflect.TypeFor[tunnels.Config]()
	for i := range t.NumField() {
		if strings.EqualFold(t.Field(i).Name, param) {
			return t.Field(i).Name
		}
	}
	return param
}
