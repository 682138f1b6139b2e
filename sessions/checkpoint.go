package sessions

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Tensor is one named array of a checkpoint, in float32 or float64 (exactly one is set).
type Tensor struct {
	Name  string
	Shape []int
	F32   []float32
	F64   []float64
}

// Len is the number of elements.
func (t Tensor) Len() int {
	if t.F32 != nil {
		return len(t.F32)
	}
	return len(t.F64)
}

// Checkpoint is the trainable state at one step: the parameters and the optimiser's state,
// enough to continue the run exactly.
type Checkpoint struct {
	Step  int
	WallS float64
	// Params are the model's parameters in the model's order.
	Params []Tensor
	// OptStep is the optimiser's update count; M and V its moment estimates, one per
	// parameter (nil in checkpoints kept for probing only).
	OptStep int
	M, V    []Tensor
}

const (
	paramsMagic = "WTPARAM1"
	optMagic    = "WTADAMW1"
	maxDims     = 8
	maxTensors  = 1 << 16
	// minTensorBytes is the smallest encoded tensor: a name length, kind and rank, and
	// either one dimension (of zero elements) or, at rank 0, one element.
	minTensorBytes = 8
)

// encodeTensors writes magic, a uint32 count and each tensor: uint16 name length, name,
// uint8 kind (4: float32, 8: float64), uint8 rank, uint32 dims, then the elements, all
// little-endian.
func encodeTensors(buf *bytes.Buffer, magic string, ts []Tensor) error {
	buf.WriteString(magic)
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:4], uint32(len(ts)))
	buf.Write(b[:4])
	for _, t := range ts {
		if len(t.Name) > math.MaxUint16 || len(t.Shape) > maxDims {
			return fmt.Errorf("sessions: tensor %q: name or rank too large", t.Name)
		}
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != t.Len() || (t.F32 != nil) == (t.F64 != nil) && n > 0 {
			return fmt.Errorf("sessions: tensor %q: shape %v does not match its %d elements", t.Name, t.Shape, t.Len())
		}
		binary.LittleEndian.PutUint16(b[:2], uint16(len(t.Name)))
		buf.Write(b[:2])
		buf.WriteString(t.Name)
		kind := byte(8)
		if t.F32 != nil {
			kind = 4
		}
		buf.WriteByte(kind)
		buf.WriteByte(byte(len(t.Shape)))
		for _, d := range t.Shape {
			binary.LittleEndian.PutUint32(b[:4], uint32(d))
			buf.Write(b[:4])
		}
		if kind == 4 {
			for _, x := range t.F32 {
				binary.LittleEndian.PutUint32(b[:4], math.Float32bits(x))
				buf.Write(b[:4])
			}
		} else {
			for _, x := range t.F64 {
				binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
				buf.Write(b[:])
			}
		}
	}
	return nil
}

// errBlob is a checkpoint that does not decode; like every damaged part of a file it makes
// the file not a session.
var errBlob = fmt.Errorf("%w: corrupt checkpoint blob", ErrNotSession)

// decodeTensors reads what encodeTensors wrote. Nothing is allocated beyond what the blob
// holds: the tensor count, each name and each tensor's elements are checked against the
// bytes left before their slices are made (a blob claiming 2^40 elements is refused, not
// allocated).

func decodeTensors(data []byte, magic string) ([]Tensor, []byte, error) {
	r := bytes.NewReader(data)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return nil, nil, fmt.Errorf("%w: bad magic", errBlob)
	}
	var count uint32
	if err := binary.Read(r, binary.LittleEndian, &count); err != nil || count > maxTensors || int(count)*minTensorBytes > r.Len() {
		return nil, nil, fmt.Errorf("%w: bad tensor count", errBlob)
	}
	ts := make([]Tensor, 0, count)
	for i := 0; i < int(count); i++ {
		var nl uint16
		if err := binary.Read(r, binary.LittleEndian, &nl); err != nil {
			return nil, nil, fmt.Errorf("%w: tensor %d: %v", errBlob, i, err)
		}
		if int(nl) > r.Len() {
			return nil, nil, fmt.Errorf("%w: tensor %d name is longer than the blob", errBlob, i)
		}
		name := make([]byte, nl)
		if _, err := io.ReadFull(r, name); err != nil {
			return nil, nil, fmt.Errorf("%w: tensor %d name: %v", errBlob, i, err)
		}
		kind, err1 := r.ReadByte()
		rank, err2 := r.ReadByte()
		if err1 != nil || err2 != nil || (kind != 4 && kind != 8) || rank > maxDims {
			return nil, nil, fmt.Errorf("%w: tensor %q header", errBlob, name)
		}
		t := Tensor{Name: SafeText(string(name)), Shape: make([]int, rank)}
		n := 1
		for d := range t.Shape {
			var v uint32
			if err := binary.Read(r, binary.LittleEndian, &v); err != nil {
				return nil, nil, fmt.Errorf("%w: tensor %q shape", errBlob, name)
			}
			t.Shape[d] = int(v)
			n *= int(v)
			if n < 0 || n*int(kind) > r.Len() {
				return nil, nil, fmt.Errorf("%w: tensor %q is longer than the blob", errBlob, name)
			}
		}
		if n*int(kind) > r.Len() {
			return nil, nil, fmt.Errorf("%w: tensor %q is longer than the blob", errBlob, name)
		}
		raw := make([]byte, n*int(kind))
		if _, err := io.ReadFull(r, raw); err != nil {
			return nil, nil, fmt.Errorf("%w: tensor %q: %v", errBlob, name, err)
		}
		if kind == 4 {
			t.F32 = make([]float32, n)
			for j := range t.F32 {
				t.F32[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
		} else {
			t.F64 = make([]float64, n)
			for j := range t.F64 {
				t.F64[j] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*j:]))
			}
		}
		ts = append(ts, t)
	}
	rest := data[len(data)-r.Len():]
	return ts, rest, nil
}

// encodeParams is the params blob: tensors after the magic "WTPARAM1".
func encodeParams(c *Checkpoint) ([]byte, error) {
	var buf bytes.Buffer
	err := encodeTensors(&buf, paramsMagic, c.Params)
	return buf.Bytes(), err
}

// encodeOptimizer is the optimiser blob: "WTADAMW1", uint64 update count, then the M
// tensors and the V tensors each as a tensor list with magic "WTPARAM1".
func encodeOptimizer(c *Checkpoint) ([]byte, error) {
	if c.M == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	buf.WriteString(optMagic)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(c.OptStep))
	buf.Write(b[:])
	if err := encodeTensors(&buf, paramsMagic, c.M); err != nil {
		return nil, err
	}
	if err := encodeTensors(&buf, paramsMagic, c.V); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeCheckpoint(step int, wall float64, params, opt []byte) (*Checkpoint, error) {
	c := &Checkpoint{Step: step, WallS: wall}
	if err := checkStep("checkpoint", step); err != nil {
		return nil, err
	}
	var err error
	if c.Params, _, err = decodeTensors(params, paramsMagic); err != nil {
		return nil, fmt.Errorf("checkpoint at step %d: %w", step, err)
	}
	if opt == nil {
		return c, nil
	}
	if len(opt) < len(optMagic)+8 || string(opt[:len(optMagic)]) != optMagic {
		return nil, fmt.Errorf("checkpoint at step %d: %w: bad optimiser magic", step, errBlob)
	}
	t := binary.LittleEndian.Uint64(opt[len(optMagic):])
	if t > math.MaxInt32 {
		return nil, fmt.Errorf("checkpoint at step %d: %w: optimiser step %d", step, errBlob, t)
	}
	c.OptStep = int(t)
	rest := opt[len(optMagic)+8:]
	if c.M, rest, err = decodeTensors(rest, paramsMagic); err != nil {
		return nil, fmt.Errorf("checkpoint at step %d: optimiser: %w", step, err)
	}
	if c.V, _, err = decodeTensors(rest, paramsMagic); err != nil {
		return nil, fmt.Errorf("checkpoint at step %d: optimiser: %w", step, err)
	}
	if len(c.M) != len(c.Params) || len(c.V) != len(c.Params) {
		return nil, fmt.Errorf("checkpoint at step %d: %w: %d parameters but %d/%d moments", step, errBlob, len(c.Params), len(c.M), len(c.V))
	}
	for i, p := range c.Params {
		if c.M[i].Len() != p.Len() || c.V[i].Len() != p.Len() {
			return nil, fmt.Errorf("checkpoint at step %d: %w: parameter %q has %d elements but its moments %d/%d", step, errBlob, p.Name, p.Len(), c.M[i].Len(), c.V[i].Len())
		}
	}
	return c, nil
}
