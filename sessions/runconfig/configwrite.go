package runconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// configEntry is one key of a configuration as a file writes it: a value, or a table of
// entries (value nil).
type configEntry struct {
	key   string
	value any
	table []configEntry
}

// configEntries lists every key of the configuration c in its fields' order under the JSON
// names, zero values included (a file that leaves a key out takes the preset's value, so
// a file that reproduces a run names them all).
func configEntries(c Config) ([]configEntry, error) {
	return structEntries(reflect.ValueOf(c))
}

func structEntries(v reflect.Value) ([]configEntry, error) {
	var out []configEntry
	for _, f := range jsonFields(v.Type()) {
		fv := v.Field(f.index)
		if st, ok := structType(f.typ); ok && st != configType {
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			sub, err := structEntries(fv)
			if err != nil {
				return nil, err
			}
			out = append(out, configEntry{key: f.name, table: sub})
			continue
		}
		val, err := plainValue(fv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		out = append(out, configEntry{key: f.name, value: val})
	}
	return out, nil
}

// plainValue is v as a value a TOML or YAML encoder writes the way encoding/json reads it
// back: integers, floats, text, booleans and lists of them; anything else as its JSON.
func plainValue(v reflect.Value) (any, error) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint(), nil
	case reflect.Float32, reflect.Float64:
		return v.Float(), nil
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Slice, reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			e, err := plainValue(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

// bareKey matches the keys TOML writes unquoted.
var bareKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// writeConfigTOML writes the entries as TOML: the values of each level, then its tables.
func writeConfigTOML(w io.Writer, entries []configEntry) error {
	var b bytes.Buffer
	if err := tomlLevel(&b, entries, ""); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func tomlLevel(b *bytes.Buffer, entries []configEntry, path string) error {
	for _, e := range entries {
		if e.table != nil {
			continue
		}
		if u, ok := e.value.(uint64); ok && u > math.MaxInt64 {
			return fmt.Errorf("%s%s %d does not fit a TOML integer: write YAML (--format yaml)", path, e.key, u)
		}
		line, err := toml.Marshal(map[string]any{e.key: e.value})
		if err != nil {
			return fmt.Errorf("%s%s: %w", path, e.key, err)
		}
		b.Write(line)
	}
	for _, e := range entries {
		if e.table == nil {
			continue
		}
		key := e.key
		if !bareKey.MatchString(key) {
			key = fmt.Sprintf("%q", key)
		}
		fmt.Fprintf(b, "\n[%s%s]\n", path, key)
		if err := tomlLevel(b, e.table, path+key+"."); err != nil {
			return err
		}
	}
	return nil
}

// writeConfigYAML writes the entries as YAML, in their order, lists in flow style.
func writeConfigYAML(w io.Writer, entries []configEntry) error {
	n, err := yamlMapping(entries)
	if err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

func yamlMapping(entries []configEntry) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, e := range entries {
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: e.key}
		var v *yaml.Node
		if e.table != nil {
			var err error
			if v, err = yamlMapping(e.table); err != nil {
				return nil, err
			}
		} else {
			v = &yaml.Node{}
			if err := v.Encode(e.value); err != nil {
				return nil, fmt.Errorf("%s: %w", e.key, err)
			}
			if v.Kind == yaml.SequenceNode {
				v.Style = yaml.FlowStyle
			}
		}
		n.Content = append(n.Content, k, v)
	}
	return n, nil
}

// Write writes c as a configuration file that ReadFile reads back to the same
// configuration: every key, in the fields' order under their JSON names, zero values
// included (a file that leaves a key out takes the preset's value, so a file that
// reproduces a run names them all); format is "toml" or "yaml".
func Write(w io.Writer, c Config, format string) error {
	entries, err := configEntries(c)
	if err != nil {
		return fmt.Errorf("runconfig: write: %w", err)
	}
	var b bytes.Buffer
	switch format {
	case "toml":
		err = writeConfigTOML(&b, entries)
	case "yaml":
		err = writeConfigYAML(&b, entries)
	default:
		return fmt.Errorf("runconfig: write: format %q: want toml or yaml", format)
	}
	if err != nil {
		return fmt.Errorf("runconfig: write: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}
