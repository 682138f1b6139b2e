package hf

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"slices"
	"strings"
	"unsafe"

	"windtunnel/backends/untrusted"
)

// Bounds on what a safetensors header may declare.
const (
	// MaxHeader is the largest header accepted (the format's own readers cap it at 100 MB).
	MaxHeader = 100 << 20
	// MaxRank is the most dimensions a tensor may have.
	MaxRank = 8
	// MaxTensors is the most tensors one file may hold.
	MaxTensors = 1 << 20
)

// Tensor is one tensor of a safetensors file: its name, dtype, shape and the bytes of its
// data inside the mapped file.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	// File is the file the tensor lies in (for messages).
	File string
	data []byte
}

// Len returns the number of elements (the product of the shape; 1 for a scalar).
func (t *Tensor) Len() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Cols returns the length of the last dimension (1 for a scalar), the row length Rows uses.
func (t *Tensor) Cols() int {
	if len(t.Shape) == 0 {
		return 1
	}
	return t.Shape[len(t.Shape)-1]
}

// RowCount returns Len()/Cols(): the rows of the tensor seen as a matrix of its last dimension.
func (t *Tensor) RowCount() int {
	if c := t.Cols(); c > 0 {
		return t.Len() / c
	}
	return 0
}

// Rows converts rows [lo, hi) of the tensor (seen as RowCount × Cols) to float32 into dst,
// which must hold (hi−lo)·Cols values, and returns dst[:(hi−lo)·Cols]. A dtype other than
// F32, F16 or BF16 or a bad range is an error.
func (t *Tensor) Rows(lo, hi int, dst []float32) ([]float32, error) {
	if !t.DType.Float() {
		return nil, fmt.Errorf("hf: %s: tensor %s has dtype %s, want F32, F16 or BF16", t.File, t.Name, t.DType)
	}
	if lo < 0 || hi < lo || hi > t.RowCount() {
		return nil, fmt.Errorf("hf: %s: tensor %s: rows [%d, %d) outside [0, %d)", t.File, t.Name, lo, hi, t.RowCount())
	}
	c := t.Cols()
	n := (hi - lo) * c
	if len(dst) < n {
		return nil, fmt.Errorf("hf: %s: tensor %s: %d values do not fit in %d", t.File, t.Name, n, len(dst))
	}
	sz := t.DType.Size()
	if err := t.read(func() { decode(dst[:n], t.data[lo*c*sz:hi*c*sz], t.DType) }); err != nil {
		return nil, err
	}
	return dst[:n], nil
}

// read runs f, which reads the tensor's mapped data, turning a fault (the file truncated
// under the mapping: SIGBUS) into an error naming the file instead of the end of the process.
func (t *Tensor) read(f func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("hf: %s: reading tensor %s failed (%v): the file changed under the run?", t.File, t.Name, r)
		}
	}()
	f()
	return nil
}

// View returns the tensor's float32 data in the mapped file itself, without a copy, when
// the tensor is F32, its data is 4-byte aligned and the machine is little-endian; ok is
// false otherwise (convert with Rows). The slice must not be written (the mapping is
// read-only) nor used after the file is closed.
func (t *Tensor) View() ([]float32, bool) {
	if t.DType != F32 || !littleEndian || len(t.data) == 0 || uintptr(unsafe.Pointer(&t.data[0]))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&t.data[0])), len(t.data)/4), true
}

// littleEndian reports whether the machine stores integers little-endian.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// headerEntry is one tensor's entry in a safetensors header.
type headerEntry struct {
	DType       DType    `json:"dtype"`
	Shape       []int64  `json:"shape"`
	DataOffsets []uint64 `json:"data_offsets"` // exactly two: begin and end
}

// parseSafetensors reads the header of the safetensors file whose whole contents are buf
// (named name in messages) and returns its tensors in data order, their data slices of buf.
func parseSafetensors(name string, buf []byte) ([]*Tensor, error) {
	if len(buf) < 8 {
		return nil, fmt.Errorf("hf: %s: %d bytes, too short for a safetensors file (an 8-byte header length and a header)", name, len(buf))
	}
	n := binary.LittleEndian.Uint64(buf)
	if n > MaxHeader {
		return nil, fmt.Errorf("hf: %s: header length %d over the limit of %d bytes (not a safetensors file?)", name, n, MaxHeader)
	}
	if n > uint64(len(buf)-8) {
		return nil, fmt.Errorf("hf: %s: header length %d runs past the end of the file (%d bytes): truncated?", name, n, len(buf))
	}
	head := buf[8 : 8+n]
	data := buf[8+n:]
	if len(bytes.TrimSpace(head)) == 0 || bytes.TrimSpace(head)[0] != '{' {
		return nil, fmt.Errorf("hf: %s: header is not a JSON object (not a safetensors file?)", name)
	}
	var raw map[string]json.RawMessage
	if err := untrusted.Unmarshal(head, &raw); err != nil { // a tensor named twice refused here
		return nil, fmt.Errorf("hf: %s: header: %w", name, err)
	}
	if md, ok := raw["__metadata__"]; ok {
		var m map[string]string
		if err := json.Unmarshal(md, &m); err != nil || m == nil {
			return nil, fmt.Errorf("hf: %s: header: __metadata__ is %.40s, want an object of strings", name, md)
		}
		delete(raw, "__metadata__")
	}
	if len(raw) > MaxTensors {
		return nil, fmt.Errorf("hf: %s: %d tensors, over the limit of %d", name, len(raw), MaxTensors)
	}
	out := make([]*Tensor, 0, len(raw))
	type span struct {
		lo, hi uint64
		name   string
	}
	spans := make([]span, 0, len(raw))
	for tn, msg := range raw {
		var e headerEntry
		dec := json.NewDecoder(bytes.NewReader(msg))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("hf: %s: tensor %q: %w", name, tn, err)
		}
		size := e.DType.Size()
		if size == 0 {
			return nil, fmt.Errorf("hf: %s: tensor %q: unknown dtype %q", name, tn, e.DType)
		}
		if len(e.Shape) > MaxRank {
			return nil, fmt.Errorf("hf: %s: tensor %q: rank %d over the limit of %d", name, tn, len(e.Shape), MaxRank)
		}
		count := uint64(1)
		shape := make([]int, len(e.Shape))
		for i, d := range e.Shape {
			if d < 0 {
				return nil, fmt.Errorf("hf: %s: tensor %q: negative dimension %d", name, tn, d)
			}
			over, c := bits.Mul64(count, uint64(d))
			if over != 0 || c > math.MaxInt64/8 {
				return nil, fmt.Errorf("hf: %s: tensor %q: shape %v overflows", name, tn, e.Shape)
			}
			count = c
			shape[i] = int(d)
		}
		if len(e.DataOffsets) != 2 {
			return nil, fmt.Errorf("hf: %s: tensor %q: %d data offsets, want 2 (begin and end)", name, tn, len(e.DataOffsets))
		}
		lo, hi := e.DataOffsets[0], e.DataOffsets[1]
		if lo > hi || hi > uint64(len(data)) {
			return nil, fmt.Errorf("hf: %s: tensor %q: data offsets [%d, %d) outside the %d bytes of data: truncated?", name, tn, lo, hi, len(data))
		}
		if hi-lo != count*uint64(size) {
			return nil, fmt.Errorf("hf: %s: tensor %q: %d bytes of data, want %d (%s × %v)", name, tn, hi-lo, count*uint64(size), e.DType, e.Shape)
		}
		out = append(out, &Tensor{Name: tn, DType: e.DType, Shape: shape, File: name, data: data[lo:hi:hi]})
		if hi > lo { // a zero-size tensor holds no bytes: it overlaps nothing, wherever it is
			spans = append(spans, span{lo, hi, tn})
		}
	}
	slices.SortFunc(spans, func(a, b span) int {
		if a.lo != b.lo {
			return cmp.Compare(a.lo, b.lo)
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			return nil, fmt.Errorf("hf: %s: tensors %q and %q overlap", name, spans[i-1].name, spans[i].name)
		}
	}
	slices.SortFunc(out, func(a, b *Tensor) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
