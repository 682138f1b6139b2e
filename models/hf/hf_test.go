package hf

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// halfValue is the value of half h by the definition: (−1)^s · 2^(e−15) · (1 + m/1024), or
// m · 2^−24 for e = 0.
func halfValue(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		return s * math.Inf(1)
	case 0:
		return s * m * math.Pow(2, -24)
	}
	return s * math.Pow(2, float64(e-15)) * (1 + m/1024)
}

func TestHalfToFloat32AllValues(t *testing.T) {
	for h := range 1 << 16 {
		got, want := float64(HalfToFloat32(uint16(h))), halfValue(uint16(h))
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("half %#04x: got %g, want NaN", h, got)
			}
			continue
		}
		if got != want || math.Signbit(got) != math.Signbit(want) {
			t.Fatalf("half %#04x: got %g, want %g", h, got, want)
		}
		if back := Float32ToHalf(float32(got)); back != uint16(h) {
			t.Fatalf("half %#04x → %g → %#04x, not a round trip", h, got, back)
		}
	}
}

// nearestHalf finds by search the finite half nearest to f (ties to the even mantissa), or
// ±Inf past the largest half's rounding boundary.
func nearestHalf(f float32) uint16 {
	best, bestD := uint16(0), math.Inf(1)
	for h := range 1 << 16 {
		v := halfValue(uint16(h))
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Signbit(v) != math.Signbit(float64(f)) {
			continue
		}
		d := math.Abs(v - float64(f))
		if d < bestD || (d == bestD && h&1 == 0) {
			best, bestD = uint16(h), d
		}
	}
	if math.Abs(float64(f)) >= 65520 { // 65504 + half an ulp (16): rounds to Inf
		return uint16(math.Float32bits(f)>>16)&0x8000 | 0x7c00
	}
	return best
}

func TestFloat32ToHalfNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []float32{0, 1, -1, 65504, 65519, 65520, 1e-8, 2.98e-8, 5.96e-8, 3e-5, 6.1e-5, -6.1e-5, 1.0009765625 + 0.00048828125}
	for range 300 {
		cases = append(cases, float32(r.NormFloat64()*math.Pow(10, float64(r.IntN(10)-6))))
	}
	for _, f := range cases {
		if got, want := Float32ToHalf(f), nearestHalf(f); got != want {
			t.Errorf("Float32ToHalf(%g) = %#04x (%g), want %#04x (%g)", f, got, HalfToFloat32(got), want, HalfToFloat32(want))
		}
	}
}

func TestFloat32ToBF16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		f := float32(r.NormFloat64() * 100)
		got := math.Float32frombits(uint32(Float32ToBF16(f)) << 16)
		// The two bfloat16 neighbours of f: truncation and the next one up in magnitude.
		lo := math.Float32frombits(math.Float32bits(f) &^ 0xffff)
		hi := math.Float32frombits((math.Float32bits(f) &^ 0xffff) + 0x10000)
		dl, dh := math.Abs(float64(f-lo)), math.Abs(float64(hi-f))
		want := lo
		if dh < dl || (dh == dl && (math.Float32bits(lo)>>16)&1 == 1) {
			want = hi
		}
		if got != want {
			t.Fatalf("bf16(%g) = %g, want %g", f, got, want)
		}
	}
	if !math.IsNaN(float64(math.Float32frombits(uint32(Float32ToBF16(float32(math.NaN()))) << 16))) {
		t.Error("NaN did not stay NaN")
	}
}

func writeTemp(t *testing.T, dir, name string, ts []Named, dt DType) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := WriteSafetensors(p, ts, dt); err != nil {
		t.Fatal(err)
	}
	return p
}

func someTensors(r *rand.Rand) []Named {
	mk := func(name string, shape ...int) Named {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return Named{Name: name, Shape: shape, Values: v}
	}
	return []Named{mk("a.weight", 3, 5), mk("b.bias", 7), mk("c", 2, 3, 4), mk("scalar")}
}

func TestRoundTripEveryDType(t *testing.T) {
	for _, dt := range []DType{F32, F16, BF16} {
		t.Run(string(dt), func(t *testing.T) {
			dir := t.TempDir()
			r := rand.New(rand.NewPCG(5, 6))
			ts := someTensors(r)
			writeTemp(t, dir, "model.safetensors", ts, dt)
			os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type":"x"}`), 0o644)
			f, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if got := strings.Join(f.Names(), ","); got != "a.weight,b.bias,c,scalar" {
				t.Fatalf("names %s", got)
			}
			for _, want := range ts {
				tt := f.Tensor(want.Name)
				if tt.DType != dt || tt.Len() != len(want.Values) {
					t.Fatalf("%s: dtype %s len %d", want.Name, tt.DType, tt.Len())
				}
				got, err := tt.Rows(0, tt.RowCount(), make([]float32, tt.Len()))
				if err != nil {
					t.Fatal(err)
				}
				for i, v := range want.Values {
					var w float32
					switch dt {
					case F32:
						w = v
					case F16:
						w = HalfToFloat32(Float32ToHalf(v))
					case BF16:
						w = math.Float32frombits(uint32(Float32ToBF16(v)) << 16)
					}
					if got[i] != w {
						t.Fatalf("%s[%d] = %g, want %g", want.Name, i, got[i], w)
					}
				}
				if v, ok := tt.View(); ok != (dt == F32) {
					t.Errorf("%s: View ok=%v for %s", want.Name, ok, dt)
				} else if ok && v[len(v)-1] != want.Values[len(v)-1] {
					t.Errorf("%s: View's last value %g, want %g", want.Name, v[len(v)-1], want.Values[len(v)-1])
				}
			}
			// A row range of a matrix.
			a := f.Tensor("a.weight")
			rows, err := a.Rows(1, 3, make([]float32, 10))
			if err != nil || len(rows) != 10 {
				t.Fatalf("Rows(1,3): %v, %d values", err, len(rows))
			}
			if _, err := a.Rows(2, 4, make([]float32, 10)); err == nil {
				t.Error("Rows past the end: no error")
			}
		})
	}
}

func TestShardedFolder(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(7, 8))
	ts := someTensors(r)
	writeTemp(t, dir, "model-00001-of-00002.safetensors", ts[:2], BF16)
	writeTemp(t, dir, "model-00002-of-00002.safetensors", ts[2:], BF16)
	wm := map[string]string{}
	for i, x := range ts {
		wm[x.Name] = map[bool]string{true: "model-00001-of-00002.safetensors", false: "model-00002-of-00002.safetensors"}[i < 2]
	}
	if err := WriteIndex(filepath.Join(dir, "model.safetensors.index.json"), wm); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{}`), 0o644)
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(f.Files) != 2 || len(f.Names()) != 4 {
		t.Fatalf("files %v names %v", f.Files, f.Names())
	}
	if f.Tensor("c").File != filepath.Join(dir, "model-00002-of-00002.safetensors") {
		t.Errorf("c in %s", f.Tensor("c").File)
	}
}

// rawFile builds a safetensors file from a header string and n data bytes.
func rawFile(header string, n int) []byte {
	b := make([]byte, 8+len(header)+n)
	binary.LittleEndian.PutUint64(b, uint64(len(header)))
	copy(b[8:], header)
	return b
}

func TestHostileSafetensors(t *testing.T) {
	huge := make([]byte, 8)
	binary.LittleEndian.PutUint64(huge, 1<<62)
	past := make([]byte, 16)
	binary.LittleEndian.PutUint64(past, 100)
	for _, c := range []struct {
		name string
		buf  []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"header length huge", huge, "over the limit"},
		{"header past the end", past, "runs past the end"},
		{"not json", rawFile("hello", 0), "not a JSON object"},
		{"broken json", rawFile(`{"a":`, 0), "header"},
		{"unknown dtype", rawFile(`{"a":{"dtype":"F99","shape":[1],"data_offsets":[0,4]}}`, 4), "unknown dtype"},
		{"unknown field", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}}`, 4), "unknown field"},
		{"negative dim", rawFile(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, 4), "negative dimension"},
		{"overflowing shape", rawFile(`{"a":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,4]}}`, 4), "overflows"},
		{"rank", rawFile(`{"a":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}}`, 4), "rank 9"},
		{"offsets past data", rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, 4), "truncated"},
		{"offsets reversed", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}`, 4), "outside"},
		{"size disagrees", rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, 8), "want 8"},
		{"overlap", rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, 8), "overlap"},
		{"huge offsets", rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[18446744073709551612,18446744073709551615]}}`, 4), "outside"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSafetensors("x.safetensors", c.buf)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "hf: x.safetensors") {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// A well-formed header with metadata and padding parses.
	ts, err := parseSafetensors("ok", rawFile(`{"__metadata__":{"format":"pt"},"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}    `, 4))
	if err != nil || len(ts) != 1 || ts[0].Len() != 2 {
		t.Errorf("well-formed: %v %v", ts, err)
	}
	// A non-float dtype is listed but not converted.
	ts, err = parseSafetensors("ok", rawFile(`{"mask":{"dtype":"BOOL","shape":[4],"data_offsets":[0,4]}}`, 4))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts[0].Rows(0, 1, make([]float32, 4)); err == nil || !strings.Contains(err.Error(), "dtype BOOL") {
		t.Errorf("BOOL rows: %v", err)
	}
}

func TestHostileFolders(t *testing.T) {
	good := func(t *testing.T) string {
		dir := t.TempDir()
		writeTemp(t, dir, "w.safetensors", someTensors(rand.New(rand.NewPCG(1, 1)))[:1], F32)
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{}`), 0o644)
		return dir
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T) string
		want  string
	}{
		{"missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "nope") }, "no such file"},
		{"a file", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "f")
			os.WriteFile(p, nil, 0o644)
			return p
		}, "not a folder"},
		{"no config", func(t *testing.T) string { return t.TempDir() }, "not a Hugging Face model folder: no config.json"},
		{"bad config", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, "config.json"), []byte(`{"a":`), 0o644)
			return d
		}, "not valid JSON"},
		{"no weights", func(t *testing.T) string {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, "config.json"), []byte(`{}`), 0o644)
			os.WriteFile(filepath.Join(d, "pytorch_model.bin"), []byte(`x`), 0o644)
			return d
		}, "pytorch_model.bin is not read"},
		{"escaping shard", func(t *testing.T) string {
			d := good(t)
			WriteIndex(filepath.Join(d, "model.safetensors.index.json"), map[string]string{"a.weight": "../w.safetensors"})
			return d
		}, "not a file name inside the folder"},
		{"missing shard", func(t *testing.T) string {
			d := good(t)
			WriteIndex(filepath.Join(d, "model.safetensors.index.json"), map[string]string{"a.weight": "gone.safetensors"})
			return d
		}, "gone.safetensors"},
		{"empty index", func(t *testing.T) string {
			d := good(t)
			os.WriteFile(filepath.Join(d, "model.safetensors.index.json"), []byte(`{}`), 0o644)
			return d
		}, "no weight_map"},
		{"duplicate tensor", func(t *testing.T) string {
			d := good(t)
			writeTemp(t, d, "w2.safetensors", someTensors(rand.New(rand.NewPCG(1, 1)))[:1], F16)
			return d
		}, "is in both"},
		{"truncated weights", func(t *testing.T) string {
			d := good(t)
			p := filepath.Join(d, "w.safetensors")
			b, _ := os.ReadFile(p)
			os.WriteFile(p, b[:len(b)-3], 0o644)
			return d
		}, "truncated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(c.setup(t))
			if err == nil {
				f.Close()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "hf: ") {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestReadBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.json")
	os.WriteFile(p, make([]byte, 100), 0o644)
	if _, err := ReadBounded(p, 99); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("over the bound: %v", err)
	}
	if b, err := ReadBounded(p, 100); err != nil || len(b) != 100 {
		t.Errorf("at the bound: %d bytes, %v", len(b), err)
	}
}

func FuzzSafetensors(f *testing.F) {
	f.Add(rawFile(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 4))
	f.Add(rawFile(`{"a":{"dtype":"F16","shape":[2,1],"data_offsets":[0,4]},"b":{"dtype":"BF16","shape":[],"data_offsets":[4,6]}}`, 6))
	f.Fuzz(func(t *testing.T, b []byte) {
		ts, err := parseSafetensors("fuzz", b)
		if err != nil {
			return
		}
		for _, x := range ts {
			if x.DType.Float() && x.RowCount() > 0 {
				if _, err := x.Rows(0, 1, make([]float32, x.Cols())); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
