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
	if !dtype.Float() {
		return fmt.Errorf("hf: write %s: dtype %s, want F32, F16 or BF16", path, dtype)
	}
	ts = slices.Clone(ts)
	slices.SortFunc(ts, func(a, b Named) int { return strings.Compare(a.Name, b.Name) })
	head := map[string]headerEntry{}
	var off uint64
	for _, t := range ts {
		n := 1
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			n *= d
			shape[i] = int64(d)
		}
		if n != len(t.Values) {
			return fmt.Errorf("hf: write %s: tensor %s has %d values for shape %v", path, t.Name, len(t.Values), t.Shape)
		}
		if _, dup := head[t.Name]; dup {
			return fmt.Errorf("hf: write %s: tensor %s given twice", path, t.Name)
		}
		size := uint64(n * dtype.Size())
		head[t.Name] = headerEntry{DType: dtype, Shape: shape, DataOffsets: [2]uint64{off, off + size}}
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
	for _, t := range ts {
		for _, v := range t.Values {
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
