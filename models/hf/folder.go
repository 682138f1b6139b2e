package hf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
	if !json.Valid(cfg) {
		return nil, fmt.Errorf("hf: %s: not valid JSON", cfgPath)
	}
	files, err := weightFiles(dir)
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
	return f, nil
}

// add maps one safetensors file and adds its tensors.
func (f *Folder) add(path string) error {
	buf, unmap, err := mapFile(path)
	if err != nil {
		return err
	}
	f.unmap = append(f.unmap, unmap)
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

// weightFiles returns the safetensors files of dir to read, as names inside dir.
func weightFiles(dir string) ([]string, error) {
	idxPath := filepath.Join(dir, "model.safetensors.index.json")
	idx, err := ReadBounded(idxPath, MaxIndex)
	switch {
	case err == nil:
		return indexShards(idxPath, idx, dir)
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); err == nil {
		return []string{"model.safetensors"}, nil
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return nil, fmt.Errorf("hf: list %s: %w", dir, err)
	}
	if len(matches) == 0 {
		hint := ""
		if _, err := os.Stat(filepath.Join(dir, "pytorch_model.bin")); err == nil {
			hint = " (pytorch_model.bin is not read: download the safetensors weights, or convert them)"
		}
		return nil, fmt.Errorf("hf: %s: no model.safetensors, model.safetensors.index.json or *.safetensors%s", dir, hint)
	}
	if len(matches) > MaxShards {
		return nil, fmt.Errorf("hf: %s: %d safetensors files, over the limit of %d", dir, len(matches), MaxShards)
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = filepath.Base(m)
	}
	slices.Sort(names)
	return names, nil
}

// indexShards returns the shard files named by the index at path (contents idx), checked to
// be plain file names that exist in dir.
func indexShards(path string, idx []byte, dir string) ([]string, error) {
	var v struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if err := json.Unmarshal(idx, &v); err != nil {
		return nil, fmt.Errorf("hf: %s: %w", path, err)
	}
	if len(v.WeightMap) == 0 {
		return nil, fmt.Errorf("hf: %s: no weight_map", path)
	}
	seen := map[string]bool{}
	var names []string
	for tensor, file := range v.WeightMap {
		if seen[file] {
			continue
		}
		if file == "" || file != filepath.Base(file) || strings.ContainsAny(file, `/\`) || file == "." || file == ".." {
			return nil, fmt.Errorf("hf: %s: tensor %q names shard %q, which is not a file name inside the folder", path, tensor, file)
		}
		if !strings.HasSuffix(file, ".safetensors") {
			return nil, fmt.Errorf("hf: %s: shard %q is not a .safetensors file", path, file)
		}
		seen[file] = true
		names = append(names, file)
		if len(names) > MaxShards {
			return nil, fmt.Errorf("hf: %s: over %d shards", path, MaxShards)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			return nil, fmt.Errorf("hf: %s names shard %s: %w", path, n, err)
		}
	}
	return names, nil
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

// Close unmaps the weights; tensors and views must not be used afterwards.
func (f *Folder) Close() error {
	var errs []error
	for _, u := range f.unmap {
		errs = append(errs, u())
	}
	f.unmap = nil
	f.tensors = nil
	return errors.Join(errs...)
}

// ReadBounded reads the regular file at path, which must be at most max bytes. A missing
// file's error wraps os.ErrNotExist. A FIFO or device is refused before it is opened, and
// opened without blocking (O_NONBLOCK) should one replace the file in between; a file that
// grows while read is refused past max bytes.
func ReadBounded(path string, max int64) ([]byte, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("hf: %s is not a regular file", path)
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("hf: open %s: %w", path, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("hf: stat %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("hf: %s is not a regular file", path)
	}
	if st.Size() > max {
		return nil, fmt.Errorf("hf: %s: %d bytes, over the limit of %d", path, st.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(fh, max+1))
	if err != nil {
		return nil, fmt.Errorf("hf: read %s: %w", path, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("hf: %s: over the limit of %d bytes", path, max)
	}
	return b, nil
}
