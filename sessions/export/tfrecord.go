package export

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// castagnoli is the CRC-32C table the TFRecord framing checksums with.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// maskedCRC is the TFRecord checksum of b: its CRC-32C, rotated right by 15 bits, plus
// the constant 0xa282ead8 (so that a CRC of data that itself holds CRCs is not trivially
// zero).
func maskedCRC(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return (c>>15 | c<<17) + 0xa282ead8
}

// writeRecord writes data as one TFRecord: its length (uint64, little-endian), the length's
// masked CRC, the data, and the data's masked CRC.
func writeRecord(w io.Writer, data []byte) error {
	var head [12]byte
	binary.LittleEndian.PutUint64(head[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(head[8:], maskedCRC(head[:8]))
	var foot [4]byte
	binary.LittleEndian.PutUint32(foot[:], maskedCRC(data))
	for _, b := range [][]byte{head[:], data, foot[:]} {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("export: tensorboard record: %w", err)
		}
	}
	return nil
}

// The field numbers of TensorFlow's Event, Summary, Summary.Value and HistogramProto
// messages (tensorflow/core/util/event.proto and tensorflow/core/framework/summary.proto):
// the only ones the export writes.
const (
	eventWallTime    protowire.Number = 1 // double
	eventStep        protowire.Number = 2 // int64
	eventFileVersion protowire.Number = 3 // string
	eventSummary     protowire.Number = 5 // Summary

	summaryValue protowire.Number = 1 // repeated Summary.Value

	valueTag    protowire.Number = 1 // string
	valueSimple protowire.Number = 2 // float
	valueHisto  protowire.Number = 5 // HistogramProto

	histoMin         protowire.Number = 1 // double
	histoMax         protowire.Number = 2 // double
	histoNum         protowire.Number = 3 // double
	histoSum         protowire.Number = 4 // double
	histoSumSquares  protowire.Number = 5 // double
	histoBucketLimit protowire.Number = 6 // packed repeated double
	histoBucket      protowire.Number = 7 // packed repeated double
)

// fileVersion is the first event of every event file: TensorBoard reads the file's
// events as version 2 (a Summary per event).
const fileVersion = "brain.Event:2"

// tbValue is one Summary.Value: a scalar (simple_value) or, when histo is not nil, a
// histogram, under a tag.
type tbValue struct {
	tag    string
	scalar float64
	histo  *tbHisto
}

// tbHisto is a HistogramProto: the values' count, range, sum and sum of squares, and the
// count in each bucket, bucket i holding the values up to limits[i] (above limits[i-1]).
type tbHisto struct {
	min, max, num, sum, sumSquares float64
	limits, counts                 []float64
}

// appendDouble appends a double field.
func appendDouble(b []byte, n protowire.Number, x float64) []byte {
	b = protowire.AppendTag(b, n, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(x))
}

// appendDoubles appends a packed repeated double field.
func appendDoubles(b []byte, n protowire.Number, xs []float64) []byte {
	packed := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		packed = protowire.AppendFixed64(packed, math.Float64bits(x))
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	return protowire.AppendBytes(b, packed)
}

// appendValue appends v as a Summary.Value message (the bytes of a field of Summary).
func appendValue(b []byte, v tbValue) []byte {
	var m []byte
	m = protowire.AppendTag(m, valueTag, protowire.BytesType)
	m = protowire.AppendString(m, v.tag)
	if h := v.histo; h != nil {
		var hm []byte
		hm = appendDouble(hm, histoMin, h.min)
		hm = appendDouble(hm, histoMax, h.max)
		hm = appendDouble(hm, histoNum, h.num)
		hm = appendDouble(hm, histoSum, h.sum)
		hm = appendDouble(hm, histoSumSquares, h.sumSquares)
		hm = appendDoubles(hm, histoBucketLimit, h.limits)
		hm = appendDoubles(hm, histoBucket, h.counts)
		m = protowire.AppendTag(m, valueHisto, protowire.BytesType)
		m = protowire.AppendBytes(m, hm)
	} else {
		m = protowire.AppendTag(m, valueSimple, protowire.Fixed32Type)
		m = protowire.AppendFixed32(m, math.Float32bits(float32(v.scalar)))
	}
	b = protowire.AppendTag(b, summaryValue, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

// event is an Event message at wall time wall (seconds since the Unix epoch) and step:
// the file version when version is not "", else a Summary of values.
func event(wall float64, step int64, version string, values []tbValue) []byte {
	var b []byte
	b = appendDouble(b, eventWallTime, wall)
	b = protowire.AppendTag(b, eventStep, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(step))
	if version != "" {
		b = protowire.AppendTag(b, eventFileVersion, protowire.BytesType)
		return protowire.AppendString(b, version)
	}
	var s []byte
	for _, v := range values {
		s = appendValue(s, v)
	}
	b = protowire.AppendTag(b, eventSummary, protowire.BytesType)
	return protowire.AppendBytes(b, s)
}
