package hf

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrictSafetensorsHeader refuses what the parser once let through: a third data
// offset (dropped), __metadata__ of another type than an object of strings, a tensor named
// twice (the last entry won, then was called an overlap); a zero-size tensor is accepted
// wherever it lies, whatever the names' order.
func TestStrictSafetensorsHeader(t *testing.T) {
	for _, c := range []struct {
		name, header string
		n            int
		want         string // "" accepts
	}{
		{"third offset", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,9]}}`, 4, "3 data offsets, want 2"},
		{"one offset", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}`, 4, "1 data offsets, want 2"},
		{"metadata a number", `{"__metadata__":3,"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4, "__metadata__ is 3, want an object of strings"},
		{"metadata of numbers", `{"__metadata__":{"format":1},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4, "want an object of strings"},
		{"metadata null", `{"__metadata__":null,"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4, "want an object of strings"},
		{"metadata of strings", `{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4, ""},
		{"tensor twice", `{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4, `key "a" appears twice`},
		{"key twice in an entry", `{"a":{"dtype":"F32","dtype":"F16","shape":[1],"data_offsets":[0,4]}}`, 4, `key "dtype" appears twice in the object at $.a`},
		{"zero-size first name", `{"a":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8, ""},
		{"zero-size last name", `{"z":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8, ""},
		{"zero-size at the start, first name", `{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8, ""},
		{"zero-size at the start, last name", `{"z":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 8, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSafetensors("x.safetensors", rawFile(c.header, c.n))
			if c.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "hf: x.safetensors") {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// shardedDir writes two shards of someTensors (a.weight and b.bias in the first, c and
// scalar in the second), config.json and an index built from wm's changes to the true map.
func shardedDir(t *testing.T, change func(wm map[string]string)) string {
	t.Helper()
	dir := t.TempDir()
	ts := someTensors(rand.New(rand.NewPCG(7, 8)))
	writeTemp(t, dir, "s1.safetensors", ts[:2], F32)
	writeTemp(t, dir, "s2.safetensors", ts[2:], F32)
	wm := map[string]string{"a.weight": "s1.safetensors", "b.bias": "s1.safetensors", "c": "s2.safetensors", "scalar": "s2.safetensors"}
	change(wm)
	if err := WriteIndex(filepath.Join(dir, "model.safetensors.index.json"), wm); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{}`), 0o644)
	return dir
}

// TestIndexNamesTheRightShard refuses an index that puts a tensor in a shard that does
// not hold it, or names a tensor no shard holds.
func TestIndexNamesTheRightShard(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(map[string]string)
		want   string
	}{
		{"right", func(map[string]string) {}, ""},
		{"wrong shard", func(wm map[string]string) { wm["c"] = "s1.safetensors" }, `the index puts tensor "c" in s1.safetensors, but it is in s2.safetensors`},
		{"no such tensor", func(wm map[string]string) { wm["ghost"] = "s2.safetensors" }, `tensor "ghost" in s2.safetensors, which does not hold it`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(shardedDir(t, c.change))
			if err == nil {
				f.Close()
			}
			if c.want == "" {
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
