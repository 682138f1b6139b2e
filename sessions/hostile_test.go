package sessions

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"windtunnel/backends/cpuclock"
)

// tensorHeader is a params blob of one float32 tensor of the given shape whose elements
// are not there (the blob ends after the shape).
func tensorHeader(count uint32, shape ...uint32) []byte {
	var b bytes.Buffer
	b.WriteString(paramsMagic)
	binary.Write(&b, binary.LittleEndian, count)
	binary.Write(&b, binary.LittleEndian, uint16(1))
	b.WriteString("w")
	b.WriteByte(4)
	b.WriteByte(byte(len(shape)))
	for _, d := range shape {
		binary.Write(&b, binary.LittleEndian, d)
	}
	return b.Bytes()
}

// validBlobs is the params and optimiser blobs of a small checkpoint.
func validBlobs(t testing.TB) ([]byte, []byte) {
	t.Helper()
	ck := &Checkpoint{Params: []Tensor{{Name: "w", Shape: []int{2, 2}, F32: []float32{1, 2, 3, 4}}}, OptStep: 3,
		M: []Tensor{{Name: "w", Shape: []int{2, 2}, F32: []float32{.1, .2, .3, .4}}},
		V: []Tensor{{Name: "w", Shape: []int{2, 2}, F64: []float64{1, 1, 1, 1}}}}
	p, err := encodeParams(ck)
	if err != nil {
		t.Fatal(err)
	}
	o, err := encodeOptimizer(ck)
	if err != nil {
		t.Fatal(err)
	}
	return p, o
}

// manyLayers is a snapshot JSON claiming n layers.
func manyLayers(n int) []byte {
	return []byte(`{"attention_entropy":[` + strings.Repeat("[],", n-1) + `[]]}`)
}

// TestHostileSessions: a session whose blobs or meta claim more than the file holds, or
// sizes no model has, is refused with an ErrNotSession error by every read path that
// decodes the damaged part, without a panic and in bounded time; Slim copies it or refuses it
// so too.
func TestHostileSessions(t *testing.T) {
	p, o := validBlobs(t)
	shortMoments := append([]byte(nil), o[:len(o)-8*4]...) // V's elements cut off
	cases := []struct {
		name string
		sql  string
		args []any
	}{
		{"checkpoint claiming 2^40 elements", `UPDATE checkpoints SET params = ?`, []any{tensorHeader(1, 1<<20, 1<<20)}},
		{"checkpoint claiming 2^16 tensors", `UPDATE checkpoints SET params = ?`, []any{tensorHeader(1 << 16)}},
		{"checkpoint name longer than blob", `UPDATE checkpoints SET params = ?`, []any{append([]byte(paramsMagic), 1, 0, 0, 0, 0xff, 0xff, 'w')}},
		{"checkpoint bad magic", `UPDATE checkpoints SET params = ?`, []any{[]byte("NOTPARAMxxxx")}},
		{"optimiser cut short", `UPDATE checkpoints SET params = ?, optimizer = ?`, []any{p, shortMoments}},
		{"optimiser step 2^63", `UPDATE checkpoints SET params = ?, optimizer = ?`, []any{p, append([]byte(optMagic), 0, 0, 0, 0, 0, 0, 0, 0x80)}},
		{"snapshot claiming 10^6 layers", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{manyLayers(1_000_000)}},
		{"snapshot ablating layer 10^9", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{[]byte(`{"ablation":[{"unit":"head","layer":1000000000,"head":0}]}`)}},
		{"snapshot not JSON", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{[]byte(`{"attention_entropy":[[`)}},
		{"eval ablating head 10^9", `UPDATE records SET eval = ? WHERE eval IS NOT NULL`, []any{[]byte(`{"ablated":[{"layer":0,"head":1000000000}]}`)}},
		{"eval not JSON", `UPDATE records SET eval = ? WHERE eval IS NOT NULL`, []any{[]byte(`[`)}},
		{"event on layer 10^9", `UPDATE events SET layer = 1000000000`, nil},
		{"meta claiming 10^6 layers", `UPDATE meta SET value = ? WHERE key = 'meta'`, []any{`{"task":"bijection","layers":1000000,"heads":4}`}},
		{"meta claiming 10^9 heads", `UPDATE meta SET value = ? WHERE key = 'meta'`, []any{`{"task":"bijection","layers":2,"heads":1000000000}`}},
		{"meta not JSON", `UPDATE meta SET value = '{' WHERE key = 'meta'`, nil},
		{"meta planning 10^12 steps", `UPDATE meta SET value = ? WHERE key = 'meta'`, []any{`{"task":"bijection","layers":2,"heads":2,"steps":1000000000000}`}},
		{"meta claiming 2^50 parameters", `UPDATE meta SET value = ? WHERE key = 'meta'`, []any{`{"task":"bijection","layers":2,"heads":2,"params":1125899906842624}`}},
		{"record at step 10^12", `UPDATE records SET step = 1000000000000 WHERE seq = (SELECT max(seq) FROM records)`, nil},
		{"record at step -1", `UPDATE records SET step = -1 WHERE seq = 1`, nil},
		{"event at step 10^12", `UPDATE events SET step = 1000000000000`, nil},
		{"checkpoint at step 10^12", `UPDATE checkpoints SET step = 1000000000000`, nil},
		{"eval with 10^4 lengths", `UPDATE records SET eval = ? WHERE eval IS NOT NULL`, []any{[]byte(`{"lengths":[` + strings.Repeat(`{"k":1},`, 9_999) + `{"k":1}]}`)}},
		{"eval at length K=10^9", `UPDATE records SET eval = ? WHERE eval IS NOT NULL`, []any{[]byte(`{"lengths":[{"k":1000000000}]}`)}},
		{"snapshot QK position 10^9", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{[]byte(`{"qk_positions":[1,1000000000]}`)}},
		{"snapshot simplex of 10^9 states", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{[]byte(`{"simplex":{"states":1000000000,"n":1}}`)}},
		{"snapshot simplex point in state 7 of 5", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{[]byte(`{"simplex_init":{"states":5,"points":[[0,0]],"argmax":[7]}}`)}},
		{"snapshot frame at step 10^12", `UPDATE records SET snapshot = ? WHERE snapshot IS NOT NULL`, []any{[]byte(`{"frame":{"points":[{"step":1000000000000}]}}`)}},
	}
	// One session written, each case damaging its own copy (writing one costs its syncs).
	valid, err := os.ReadFile(writeSession(t, t.TempDir(), 30))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.wtlab")
			if err := os.WriteFile(path, valid, 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", dsn(path, false))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(c.sql, c.args...); err != nil {
				t.Fatal(err)
			}
			db.Exec(`PRAGMA journal_mode=DELETE`)
			db.Close()
			// Bounded in CPU time (the process's: its GC included), which a loaded
			// machine's waiting for a core does not stretch as it does wall time.
			start, cpu := time.Now(), cpuclock.Process()
			err = openAndReadAll(path)
			if !errors.Is(err, ErrNotSession) {
				t.Fatalf("err = %v, want ErrNotSession", err)
			}
			if d := cpuclock.Process() - cpu; d > 5*time.Second*raceSlowdown {
				t.Errorf("took %v of CPU (%v of wall time)", d, time.Since(start))
			}
			// slim copies it or refuses it as not a session, in bounded time.
			start, cpu = time.Now(), cpuclock.Process()
			if _, err := Slim(path, filepath.Join(t.TempDir(), "slim.wtlab"), SlimOptions{}); err != nil && !errors.Is(err, ErrNotSession) {
				t.Errorf("slim: %v, want a copy or ErrNotSession", err)
			}
			if d := cpuclock.Process() - cpu; d > 5*time.Second*raceSlowdown {
				t.Errorf("slim took %v of CPU (%v of wall time)", d, time.Since(start))
			}
		})
	}
}

// openAndReadAll opens path and runs every read path; the first error ends it.
func openAndReadAll(path string) error {
	r, err := Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	return readAll(r)
}

// TestCheckpointClaimNotAllocated: decoding a blob that claims 2^40 elements (or 2^16
// tensors) allocates about as much as the blob, not what it claims.
func TestCheckpointClaimNotAllocated(t *testing.T) {
	for _, blob := range [][]byte{tensorHeader(1, 1<<20, 1<<20), tensorHeader(1 << 16), tensorHeader(1, 1<<31)} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := decodeCheckpoint(1, 0, blob, nil)
		runtime.ReadMemStats(&m1)
		if !errors.Is(err, ErrNotSession) {
			t.Errorf("%x: err = %v, want ErrNotSession", blob, err)
		}
		if got := m1.TotalAlloc - m0.TotalAlloc; got > 64<<10 {
			t.Errorf("%x: allocated %d bytes", blob, got)
		}
	}
}

// FuzzCheckpoint: decoding arbitrary checkpoint blobs never panics, and what it returns
// holds no more elements than the blobs have bytes for.
func FuzzCheckpoint(f *testing.F) {
	p, o := validBlobs(f)
	f.Add(p, o)
	f.Add(p, []byte(nil))
	f.Add(tensorHeader(1, 1<<20, 1<<20), []byte(nil))
	f.Add(p, o[:len(o)/2])
	f.Fuzz(func(t *testing.T, params, opt []byte) {
		if len(opt) == 0 {
			opt = nil
		}
		c, err := decodeCheckpoint(1, 0, params, opt)
		if err != nil {
			if !errors.Is(err, ErrNotSession) {
				t.Fatalf("error %v is not ErrNotSession", err)
			}
			return
		}
		n := 0
		for _, ts := range [][]Tensor{c.Params, c.M, c.V} {
			for _, x := range ts {
				n += x.Len()
			}
		}
		if 4*n > len(params)+len(opt) {
			t.Fatalf("%d elements from %d bytes", n, len(params)+len(opt))
		}
	})
}

// FuzzSnapshot: decoding arbitrary snapshot JSON never panics, and a snapshot it accepts
// names no more layers or heads than the bounds.
func FuzzSnapshot(f *testing.F) {
	for _, r := range synth(10) {
		if r.Snapshot != nil {
			b, err := json.Marshal(r.Snapshot)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add(manyLayers(3))
	f.Add([]byte(`{"ablation":[{"unit":"head","layer":1,"head":2}],"frame":{"points":[{"step":1,"drift":[null,1]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decodeSnapshot(b)
		if err != nil {
			if !errors.Is(err, ErrNotSession) {
				t.Fatalf("error %v is not ErrNotSession", err)
			}
			return
		}
		if len(s.AttentionEntropy) > MaxLayers || len(s.HeadDelta) > MaxLayers || len(s.QKAlignment) > MaxLayers {
			t.Fatal("a snapshot beyond the bounds was accepted")
		}
		for _, e := range s.Ablation {
			if e.Layer >= MaxLayers || e.Head >= MaxHeads {
				t.Fatalf("ablation of %d.%d accepted", e.Layer, e.Head)
			}
		}
	})
}

// TestHostileCorpusDirs: the crafted seeds under testdata/fuzz are there (go test runs them
// as FuzzCheckpoint and FuzzSnapshot cases).
func TestHostileCorpusDirs(t *testing.T) {
	for _, target := range []string{"FuzzCheckpoint", "FuzzSnapshot"} {
		m, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
		if err != nil || len(m) == 0 {
			t.Errorf("no crafted seeds for %s (%v)", target, err)
		}
	}
}
