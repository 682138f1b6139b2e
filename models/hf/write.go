package hf

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// Named is one tensor to write: its name, shape and float32 values (row-major).
type Named struct {
	Name   string
	Shape  []int
	Values []float32
}

// WriteSafetensors writes ts to path as a safetensors file whose float tensors are stored
// as dtype (F32, F16 or BF16, rounded to nearest even), in name order, the header padded
// with spaces to a multiple of 8 bytes as the format's own writer does.
func WriteSafetensors(path string, ts []Named, dtype DType) error {
	byName := map[string]Named{}
	specs := make([]Named, len(ts))
	for i, t := range ts {
		byName[t.Name] = t
		specs[i] = Named{Name: t.Name, Shape: t.Shape}
		if n := count(t.Shape); n != len(t.Values) {
			return fmt.Errorf("hf: write %s: tensor %s has %d values for shape %v", path, t.Name, len(t.Values), t.Shape)
		}
	}
	return WriteSafetensorsFunc(path, specs, dtype, func(name string, dst []float32) { copy(dst, byName[name].Values) })
}

// WriteSafetensorsFunc is WriteSafetensors with the values of each tensor (specs give names
// and shapes; their Values are ignored) filled in by fill, one tensor at a time, so that a
// large file is written without holding its tensors in memory.
func WriteSafetensorsFunc(path string, specs []Named, dtype DType, fill func(name string, dst []float32)) error {
	if !dtype.Float() {
		return fmt.Errorf("hf: write %s: dtype %s, want F32, F16 or BF16", path, dtype)
	}
	specs = slices.Clone(specs)
	slices.SortFunc(specs, func(a, b Named) int { return strings.Compare(a.Name, b.Name) })
	head := map[string]headerEntry{}
	var off uint64
	for _, t := range specs {
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			shape[i] = int64(d)
		}
		if _, dup := head[t.Name]; dup {
			return fmt.Errorf("hf: write %s: tensor %s given twice", path, t.Name)
		}
		size := uint64(count(t.Shape) * dtype.Size())
		head[t.Name] = headerEntry{DType: dtype, Shape: shape, DataOffsets: []uint64{off, off + size}}
		off += size
	}
	hj, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("hf: write %s: %w", path, err)
	}
	if pad := (8 - len(hj)%8) % 8; pad > 0 {
		hj = append(hj, strings.Repeat(" ", pad)...)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("hf: write: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var b8 [8]byte
	binary.LittleEndian.PutUint64(b8[:], uint64(len(hj)))
	w.Write(b8[:])
	w.Write(hj)
	var vals []float32
	for _, t := range specs {
		n := count(t.Shape)
		if cap(vals) < n {
			vals = make([]float32, n)
		}
		vals = vals[:n]
		clear(vals)
		fill(t.Name, vals)
		for _, v := range vals {
			switch dtype {
			case F32:
				binary.LittleEndian.PutUint32(b8[:4], math.Float32bits(v))
				w.Write(b8[:4])
			case F16:
				binary.LittleEndian.PutUint16(b8[:2], Float32ToHalf(v))
				w.Write(b8[:2])
			case BF16:
				binary.LittleEndian.PutUint16(b8[:2], Float32ToBF16(v))
				w.Write(b8[:2])
			}
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("hf: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("hf: write %s: %w", path, err)
	}
	return nil
}

// count is the number of elements of a shape.
func count(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// WriteIndex writes path as a model.safetensors.index.json mapping each tensor name to its shard file.
func WriteIndex(path string, weightMap map[string]string) error {
	b, err := json.MarshalIndent(map[string]any{"metadata": map[string]any{}, "weight_map": weightMap}, "", "  ")
	if err != nil {
		return fmt.Errorf("hf: write %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("hf: write: %w", err)
	}
	return nil
}
