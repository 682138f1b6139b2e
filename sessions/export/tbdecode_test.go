package export

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The test's own reader of an event file, written from the record format's specification
// and TensorFlow's field numbers, independent of the exporter's encoder.

// tbEvent is an Event as the test's own decoder reads it.
type tbEvent struct {
	wall    float64
	step    int64
	version string
	scalars map[string]float32
	histos  map[string]tbHisto
}

// readRecords splits a TFRecord file into its records, checking both masked CRC-32Cs of
// each as the format specifies (written here again, not calling the exporter's).
func readRecords(t *testing.T, b []byte) [][]byte {
	t.Helper()
	mask := func(p []byte) uint32 {
		return bits.RotateLeft32(crc32.Checksum(p, crc32.MakeTable(crc32.Castagnoli)), -15) + 0xa282ead8
	}
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 12 {
			t.Fatalf("record header cut: %d bytes", len(b))
		}
		n := binary.LittleEndian.Uint64(b)
		if got, want := binary.LittleEndian.Uint32(b[8:]), mask(b[:8]); got != want {
			t.Fatalf("length CRC %#x, want %#x", got, want)
		}
		if uint64(len(b)-16) < n {
			t.Fatalf("record of %d bytes cut at %d", n, len(b)-16)
		}
		data := b[12 : 12+n]
		if got, want := binary.LittleEndian.Uint32(b[12+n:]), mask(data); got != want {
			t.Fatalf("data CRC %#x, want %#x", got, want)
		}
		out = append(out, data)
		b = b[16+n:]
	}
	return out
}

// fields walks a message's fields, calling f with each field's number, type and value bytes
// (a varint or fixed value as its number, in v; a length-delimited one in p).
func fields(b []byte, f func(n protowire.Number, typ protowire.Type, v uint64, p []byte) error) error {
	for len(b) > 0 {
		n, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return protowire.ParseError(k)
		}
		b = b[k:]
		var v uint64
		var p []byte
		switch typ {
		case protowire.VarintType:
			v, k = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, k = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, k = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			p, k = protowire.ConsumeBytes(b)
		default:
			return fmt.Errorf("field %d: unexpected wire type %d", n, typ)
		}
		if k < 0 {
			return protowire.ParseError(k)
		}
		b = b[k:]
		if err := f(n, typ, v, p); err != nil {
			return err
		}
	}
	return nil
}

// doubles decodes a packed repeated double.
func doubles(p []byte) ([]float64, error) {
	var xs []float64
	for len(p) > 0 {
		v, k := protowire.ConsumeFixed64(p)
		if k < 0 {
			return nil, protowire.ParseError(k)
		}
		xs, p = append(xs, math.Float64frombits(v)), p[k:]
	}
	return xs, nil
}

// decodeEvent decodes an Event by TensorFlow's field numbers.
func decodeEvent(b []byte) (tbEvent, error) {
	e := tbEvent{scalars: map[string]float32{}, histos: map[string]tbHisto{}}
	err := fields(b, func(n protowire.Number, _ protowire.Type, v uint64, p []byte) error {
		switch n {
		case 1:
			e.wall = math.Float64frombits(v)
		case 2:
			e.step = int64(v)
		case 3:
			e.version = string(p)
		case 5:
			return fields(p, func(_ protowire.Number, _ protowire.Type, _ uint64, val []byte) error {
				var tag string
				var scalar *float32
				var h *tbHisto
				err := fields(val, func(n protowire.Number, _ protowire.Type, v uint64, p []byte) error {
					switch n {
					case 1:
						tag = string(p)
					case 2:
						x := math.Float32frombits(uint32(v))
						scalar = &x
					case 5:
						h = &tbHisto{}
						return fields(p, func(n protowire.Number, _ protowire.Type, v uint64, p []byte) (err error) {
							x := math.Float64frombits(v)
							switch n {
							case 1:
								h.min = x
							case 2:
								h.max = x
							case 3:
								h.num = x
							case 4:
								h.sum = x
							case 5:
								h.sumSquares = x
							case 6:
								h.limits, err = doubles(p)
							case 7:
								h.counts, err = doubles(p)
							}
							return err
						})
					}
					return nil
				})
				switch {
				case err != nil:
					return err
				case h != nil:
					e.histos[tag] = *h
				case scalar != nil:
					e.scalars[tag] = *scalar
				default:
					return fmt.Errorf("value %q holds neither a scalar nor a histogram", tag)
				}
				return nil
			})
		}
		return nil
	})
	return e, err
}
