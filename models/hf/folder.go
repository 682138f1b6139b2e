package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"windtunnel/backends/untrusted"
)

// Bounds on the JSON files of a folder.
const (
	// MaxConfig is the largest config.json read.
	MaxConfig = 1 << 20
	// MaxIndex is the largest model.safetensors.index.json read.
	MaxIndex = 64 << 20
	// MaxShards is the most shard files an index may name.
	MaxShards = 4096
)

// Folder is an opened Hugging Face model folder: its configuration and its weights, mapped.
type Folder struct {
	// Dir is the folder's path.
	Dir string
	// Config is config.json, undecoded.
	Config json.RawMessage
	// Files are the safetensors files read, in order.
	Files   []string
	tensors map[string]*Tensor
	unmap   []func() error
	mapped  []mapping
}

// mapping is one mapped file: the file kept open and the size it was mapped at.
type mapping struct {
	path string
	f    *os.File
	size int64
}

// Open reads the model folder dir: config.json and the weights of model.safetensors.index.json's
// shards, else model.safetensors, else every *.safetensors file. A folder without config.json
// or without safetensors weights, a hostile or truncated file, or a tensor name found in two
// files is an error naming the file. Close unmaps the weights.
func Open(dir string) (*Folder, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("hf: open model folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("hf: %s is not a folder (want a Hugging Face model folder with config.json and *.safetensors)", dir)
	}
	cfgPath := filepath.Join(dir, "config.json")
	cfg, err := ReadBounded(cfgPath, MaxConfig)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("hf: %s is not a Hugging Face model folder: no config.json", dir)
	}
	if err != nil {
		return nil, err
	}
	if err := untrusted.CheckJSON(cfg); err != nil {
		return nil, fmt.Errorf("hf: %s: not valid JSON: %w", cfgPath, err)
	}
	files, weightMap, err := weightFiles(dir)
	if err != nil {
		return nil, err
	}
	f := &Folder{Dir: dir, Config: cfg, Files: files, tensors: map[string]*Tensor{}}
	for _, name := range files {
		if err := f.add(filepath.Join(dir, name)); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := f.checkIndex(weightMap); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkIndex refuses an index whose weight_map names a tensor that is not in the shard it
// names (the first such tensor in name order).
func (f *Folder) checkIndex(weightMap map[string]string) error {
	names := make([]string, 0, len(weightMap))
	for n := range weightMap {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		shard := weightMap[n]
		t := f.tensors[n]
		switch {
		case t == nil:
			return fmt.Errorf("hf: %s: the index puts tensor %q in %s, which does not hold it (nor does any shard)", f.Dir, n, shard)
		case filepath.Base(t.File) != shard:
			return fmt.Errorf("hf: %s: the index puts tensor %q in %s, but it is in %s", f.Dir, n, shard, filepath.Base(t.File))
		}
	}
	return nil
}

// add maps one safetensors file and adds its tensors.
func (f *Folder) add(path string) error {
	buf, fh, unmap, err := mapFile(path)
	if err != nil {
		return err
	}
	f.unmap = append(f.unmap, unmap)
	if fh != nil {
		f.mapped = append(f.mapped, mapping{path, fh, int64(len(buf))})
	}
	ts, err := parseSafetensors(path, buf)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if old, ok := f.tensors[t.Name]; ok {
			return fmt.Errorf("hf: tensor %q is in both %s and %s", t.Name, old.File, path)
		}
		f.tensors[t.Name] = t
	}
	return nil
}

// weightFiles returns the safetensors files of dir to read, as names inside dir, and the
// index's weight map when there is an index.
func weightFiles(dir string) ([]string, map[string]string, error) {
	idxPath := filepath.Join(dir, "model.safetensors.index.json")
	idx, err := ReadBounded(idxPath, MaxIndex)
	switch {
	case err == nil:
		return indexShards(idxPath, idx, dir)
	case !errors.Is(err, os.ErrNotExist):
		return nil, nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); err == nil {
		return []string{"model.safetensors"}, nil, nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return nil, nil, fmt.Errorf("hf: list %s: %w", dir, err)
	}
	if len(matches) == 0 {
		hint := ""
		if _, err := os.Stat(filepath.Join(dir, "pytorch_model.bin")); err == nil {
			hint = " (pytorch_model.bin is not read: download the safetensors weights, or convert them)"
		}
		return nil, nil, fmt.Errorf("hf: %s: no model.safetensors, model.safetensors.index.json or *.safetensors%s", dir, hint)
	}
	if len(matches) > MaxShards {
		return nil, nil, fmt.Errorf("hf: %s: %d safetensors files, over the limit of %d", dir, len(matches), MaxShards)
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = filepath.Base(m)
	}
	slices.Sort(names)
	return names, nil, nil
}

// indexShards returns the shard files named by the index at path (contents idx), checked to
// be plain file names that exist in dir, and its weight map.
func indexShards(path string, idx []byte, dir string) ([]string, map[string]string, error) {
	var v struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := untrusted.Unmarshal(idx, &v); err != nil {
		return nil, nil, fmt.Errorf("hf: %s: %w", path, err)
	}
	if len(v.WeightMap) == 0 {
		return nil, nil, fmt.Errorf("hf: %s: no weight_map", path)
	}
	seen := map[string]bool{}
	var names []string
	for tensor, file := range v.WeightMap {
		if seen[file] {
			continue
		}
		if file == "" || file != filepath.Base(file) || strings.ContainsAny(file, `/\`) || file == "." || file == ".." {
			return nil, nil, fmt.Errorf("hf: %s: tensor %q names shard %q, which is not a file name inside the folder", path, tensor, file)
		}
		if !strings.HasSuffix(file, ".safetensors") {
			return nil, nil, fmt.Errorf("hf: %s: shard %q is not a .safetensors file", path, file)
		}
		seen[file] = true
		names = append(names, file)
		if len(names) > MaxShards {
			return nil, nil, fmt.Errorf("hf: %s: over %d shards", path, MaxShards)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return nil, nil, fmt.Errorf("hf: %s names shard %s: %w", path, n, err)
		}
	}
	return names, v.WeightMap, nil
}

// Tensor returns the tensor called name, or nil.
func (f *Folder) Tensor(name string) *Tensor { return f.tensors[name] }

// Names returns every tensor name, sorted.
func (f *Folder) Names() []string {
	out := make([]string, 0, len(f.tensors))
	for n := range f.tensors {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Check returns an error naming the first weight file whose size is no longer the size it
// was mapped at: a mapped file truncated under a run would stop the process (SIGBUS) at
// the first read past its new end, so readers call Check before they use the weights.
func (f *Folder) Check() error {
	for _, m := range f.mapped {
		st, err := m.f.Stat()
		if err != nil {
			return fmt.Errorf("hf: %s: %w", m.path, err)
		}
		if st.Size() != m.size {
			return fmt.Errorf("hf: %s changed under the run: %d bytes, %d when it was opened", m.path, st.Size(), m.size)
		}
	}
	return nil
}

// Close unmaps the weights; tensors and views must not be used afterwards.
func (f *Folder) Close() error {
	var errs []error
	for _, u := range f.unmap {
		errs = append(errs, u())
	}
	f.unmap = nil
	f.mapped = nil
	f.tensors = nil
	return errors.Join(errs...)
}

// ReadBounded reads the regular file at path, which must be at most max bytes (a FIFO, a
// device or a folder is refused before it is opened: untrusted.ReadFile). A missing
// file's error wraps os.ErrNotExist.
func ReadBounded(path string, max int64) ([]byte, error) {
	b, err := untrusted.ReadFile(path, max)
	if err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	}
	return b, nil
}
