package sessions

import (
	"database/sql"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// writeSession makes a closed session of n synthetic records and returns its path.
func writeSession(t testing.TB, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, "s.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range synth(n) {
		w.Record(r)
	}
	w.Event(Event{Step: 5, Kind: EventPause})
	w.Checkpoint(&Checkpoint{Step: n, Params: []Tensor{{Name: "w", Shape: []int{3}, F32: []float32{1, 2, 3}}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll exercises every read path of a reader.
func readAll(r *Reader) error {
	if _, err := r.Records(-1<<40, 1<<40); err != nil {
		return err
	}
	if _, err := r.Scalars(-1, 50); err != nil {
		return err
	}
	if _, err := r.Evals(-1, 50); err != nil {
		return err
	}
	if _, _, err := r.At(-1); err != nil {
		return err
	}
	if _, _, err := r.Snapshot(-1); err != nil {
		return err
	}
	if _, err := r.Events(-1); err != nil {
		return err
	}
	if _, _, err := r.Checkpoint(-1); err != nil {
		return err
	}
	_, err := r.Count()
	return err
}

// TestFollowLiveWriter tails a session while a writer is still adding to it, and must see
// every record once, in order, equal to what was written.
func TestFollowLiveWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := synth(600)
	go func() {
		for i, r := range want {
			w.Record(r)
			if i%10 == 0 {
				time.Sleep(2 * time.Millisecond)
			}
		}
		w.Close()
	}()
	var r *Reader
	for deadline := time.Now().Add(10 * time.Second); ; {
		if r, err = Open(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("open a live session: %v", err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	defer r.Close()
	r.Follow(2 * time.Millisecond)
	var got []Record
	var seq int64
	batches := 0
	for deadline := time.Now().Add(20 * time.Second); len(got) < len(want); {
		if time.Now().After(deadline) {
			t.Fatalf("follower saw %d of %d records", len(got), len(want))
		}
		select {
		case <-r.Changed():
		case <-time.After(20 * time.Millisecond):
		}
		recs, next, err := r.Since(seq, 64)
		if err != nil {
			t.Fatal(err)
		}
		got, seq = append(got, recs...), next
		if len(recs) > 0 {
			batches++
		}
	}
	if batches < 3 {
		t.Errorf("the follower read everything in %d batches: it did not follow a live writer", batches)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("followed records differ from the written ones")
	}
}

// TestBadFiles: foreign, truncated, corrupted and newer files give errors, never panics.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeSession(t, dir, 400)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	put := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, _ := sql.Open("sqlite", foreign)
	db.Exec(`CREATE TABLE t(x)`)
	db.Close()
	newer := put("newer.wtlab", data)
	db, _ = sql.Open("sqlite", newer)
	if _, err := db.Exec(`UPDATE meta SET value = '99' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, c := range []struct {
		name string
		path string
		want error
	}{
		{"text", put("text.wtlab", []byte("step,loss\n1,2\n")), ErrNotSession},
		{"empty", put("empty.wtlab", nil), ErrNotSession},
		{"directory", dir, ErrNotSession},
		{"foreign sqlite", foreign, ErrNotSession},
		{"newer schema", newer, ErrNewerSchema},
		{"header only", put("head.wtlab", data[:100]), ErrNotSession},
		{"half", put("half.wtlab", data[:len(data)/2]), ErrNotSession},
		{"all but one page", put("short.wtlab", data[:len(data)-4096]), ErrNotSession},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Open(c.path)
			if err == nil {
				r.Close()
				t.Fatalf("opened")
			}
			if !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
	// Random bytes overwritten anywhere: opening and reading must fail cleanly or succeed.
	rng := rand.New(rand.NewPCG(1, 2))
	failures := 0
	for i := 0; i < 60; i++ {
		b := append([]byte(nil), data...)
		for k := 0; k < 1+rng.IntN(16); k++ {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		p := put("corrupt.wtlab", b)
		r, err := Open(p)
		if err == nil {
			err = readAll(r)
			r.Close()
		}
		if err != nil {
			failures++
		}
	}
	t.Logf("%d of 60 randomly corrupted files gave an error, the rest read cleanly", failures)
}

// FuzzReader feeds arbitrary bytes to Open and every read; nothing may panic. Run it with
// -fuzzminimizetime 1x: minimising the 40 KB session inputs that widen coverage otherwise
// takes minutes per input.
func FuzzReader(f *testing.F) {
	dir := f.TempDir()
	data, err := os.ReadFile(writeSession(f, dir, 30))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(sqliteMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f.wtlab")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(p)
		if err != nil {
			return
		}
		readAll(r)
		r.Close()
	})
}
