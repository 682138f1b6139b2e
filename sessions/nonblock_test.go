package sessions

import (
	"path/filepath"
	"testing"
	"time"
)

// TestReaderNeverBlocksWriter: a replay or attach holding a live session open, in the
// middle of a read (an open read transaction) and following it, never holds up the
// writer: every commit and the writer's Close finish in bounded time (Close used to wait
// the whole 10 s busy timeout), the reader then sees what was committed, and the last
// reader to close makes the session one file.
func TestReaderNeverBlocksWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.wtlab")
	w, err := Create(path, testMeta(), WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	recs := synth(200)
	for _, r := range recs[:10] {
		w.Record(r)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.Follow(time.Millisecond)
	rows, err := r.db.Query(`SELECT step FROM records ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() { // the read transaction stays open until rows is closed
		t.Fatal("no record")
	}
	const bound = 2 * time.Second
	for i := 10; i < len(recs); i += 10 {
		for _, rec := range recs[i : i+10] {
			w.Record(rec)
		}
		w.Checkpoint(&Checkpoint{Step: recs[i].Step, Params: []Tensor{{Name: "w", Shape: []int{2}, F32: []float32{1, 2}}}})
		start := time.Now()
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > bound {
			t.Fatalf("commit %d took %v while a reader was reading", i/10, d)
		}
	}
	start := time.Now()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > bound {
		t.Fatalf("Close took %v while a reader was reading", d)
	}
	rows.Close()
	if n, err := r.Count(); err != nil || n != len(recs) {
		t.Errorf("reader sees %d records (%v), want %d", n, err, len(recs))
	}
	r.Close()
	if exists(path + "-wal") {
		t.Error("the last reader to close left the write-ahead log")
	}
}
