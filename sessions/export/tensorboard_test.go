package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"windtunnel/sessions"
)

// tbSession writes a session of three records: a training step, an evaluation of the
// whole model with an hmm length curve, and a geometry snapshot of two layers of two heads
// (the second layer's second head not measured), started at a known time.
func tbSession(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name+".wtlab")
	created := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	w, err := sessions.Create(path, sessions.Meta{Task: "hmm", Model: "transformer", Steps: 20, Created: created}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 1, WallS: 0.5, Loss: 2.5, LR: 1e-3, GradNorm: 4, StepsPerS: 100, State: sessions.Training})
	w.Record(sessions.Record{Step: 10, WallS: 1.5, Loss: 1.25, LR: 5e-4, GradNorm: 2, State: sessions.Training, Eval: &sessions.Eval{
		BitErrorPosition: 0.25, BitErrorSample: 0.375, KLBits: 0.125, TVD: 0.0625, Accuracy: 0.75,
		Lengths: []sessions.LengthScore{{K: 8, Train: true, KLBits: 0.125}, {K: 16, KLBits: 0.5}}}})
	w.Record(sessions.Record{Step: 20, WallS: 3, Loss: 1, State: sessions.Done, Snapshot: &sessions.Snapshot{
		AttentionEntropy: [][]float64{{1, 2}, {3}}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMaskedCRC: the masked CRC-32C of the standard check input "123456789" (CRC-32C
// 0xe3069283) rotated right by 15 bits plus 0xa282ead8.
func TestMaskedCRC(t *testing.T) {
	crc := uint32(0xe3069283)
	if got, want := maskedCRC([]byte("123456789")), (crc>>15|crc<<17)+0xa282ead8; got != want {
		t.Fatalf("maskedCRC %#x, want %#x", got, want)
	}
}

// TestTensorBoard: the event file decodes, by the record format's specification (both
// CRCs) and TensorFlow's field numbers, to the file version and then an event per record
// with the recorded scalars at the record's step and wall time, the length curve's KL per
// K, each head's attention entropy and the heads' finite entropies as one histogram.
func TestTensorBoard(t *testing.T) {
	path := tbSession(t, t.TempDir(), "run")
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := TensorBoard(r, &b); err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, b.Bytes())
	if len(recs) != 4 {
		t.Fatalf("%d records, want the version and 3 events", len(recs))
	}
	var evs []tbEvent
	for i, rec := range recs {
		e, err := decodeEvent(rec)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		evs = append(evs, e)
	}
	start := float64(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).Unix())
	if evs[0].version != "brain.Event:2" || evs[0].wall != start || len(evs[0].scalars) != 0 {
		t.Errorf("first event %+v, want the file version at the session's start", evs[0])
	}
	const tol = 1e-6
	for _, c := range []struct {
		ev   int
		step int64
		wall float64
		want map[string]float32
	}{
		{1, 1, 0.5, map[string]float32{TagLoss: 2.5, TagLR: 1e-3, TagGradNorm: 4, TagStepsPerS: 100}},
		{2, 10, 1.5, map[string]float32{TagLoss: 1.25, TagLR: 5e-4, TagGradNorm: 2, TagBitsA: 0.25, TagBitsB: 0.375, TagKL: 0.125,
			TagTVD: 0.0625, TagAccuracy: 0.75, "kl_at_length/K8": 0.125, "kl_at_length/K16": 0.5}},
		{3, 20, 3, map[string]float32{TagLoss: 1, TagLR: 0, TagGradNorm: 0, "attention_entropy/L0H0": 1, "attention_entropy/L0H1": 2,
			"attention_entropy/L1H0": 3}},
	} {
		e := evs[c.ev]
		if e.step != c.step || math.Abs(e.wall-(start+c.wall)) > tol || e.version != "" {
			t.Errorf("event %d: step %d wall %v, want %d %v", c.ev, e.step, e.wall, c.step, start+c.wall)
		}
		if len(e.scalars) != len(c.want) {
			t.Errorf("event %d: tags %v, want %v", c.ev, e.scalars, c.want)
		}
		for tag, want := range c.want {
			got, ok := e.scalars[tag]
			if !ok || !(got == want || math.IsNaN(float64(got)) && math.IsNaN(float64(want))) {
				t.Errorf("event %d: %s = %v (%v), want %v", c.ev, tag, got, ok, want)
			}
		}
	}
	h, ok := evs[3].histos[TagAttentionEntropy]
	if !ok || h.min != 1 || h.max != 3 || h.num != 3 || h.sum != 6 || h.sumSquares != 14 || len(h.limits) != 3 || h.limits[2] < 3 ||
		fmt.Sprint(h.counts) != "[1 1 1]" {
		t.Errorf("attention entropy histogram %+v (%v)", h, ok)
	}
}

// TestHistogram: equal-width buckets up to just above the largest value, every finite
// value counted once; one bucket when all are equal; none when none is finite.
func TestHistogram(t *testing.T) {
	for _, c := range []struct {
		xs             []float64
		n              int
		limits, counts string
	}{
		{[]float64{0, 1, 2, 3, 4}, 2, "[2 4]", "[2 3]"},
		{[]float64{2, 2, math.Inf(1)}, 20, "[2]", "[2]"},
		{[]float64{4, 0, 2, 1}, 20, "[1 2 3 4]", "[1 1 1 1]"},
	} {
		h := histogram(c.xs, c.n)
		if h == nil || fmt.Sprint(h.counts) != c.counts || len(h.limits) != len(h.counts) {
			t.Errorf("histogram(%v, %d): %+v, want counts %s", c.xs, c.n, h, c.counts)
			continue
		}
		// The last limit lies just above the largest value, the others on the bucket edges.
		last := h.limits[len(h.limits)-1]
		h.limits[len(h.limits)-1] = h.max
		if fmt.Sprint(h.limits) != c.limits || last <= h.max || last > h.max+1e-9 {
			t.Errorf("histogram(%v, %d): limits %v (last %v), want %s", c.xs, c.n, h.limits, last, c.limits)
		}
	}
	if h := histogram([]float64{math.NaN()}, 20); h != nil {
		t.Errorf("histogram of no finite value: %+v, want nil", h)
	}
}

// TestTensorBoardRuns: a file is its own run, a folder's sessions are runs under the
// folder's name, and the event files land in dir/<run>/, one per run, replaced when the
// export is repeated; two sessions of one run name are refused.
func TestTensorBoardRuns(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "sweep")
	one := tbSession(t, dir, "solo")
	tbSession(t, sweep, "p0")
	tbSession(t, sweep, "p1")
	runs, err := TensorBoardRuns([]string{one, sweep})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(runs) != fmt.Sprint([]TensorBoardRun{{"solo", one}, {"sweep/p0", filepath.Join(sweep, "p0.wtlab")}, {"sweep/p1", filepath.Join(sweep, "p1.wtlab")}}) {
		t.Fatalf("runs %v", runs)
	}
	out := filepath.Join(dir, "tb")
	for range 2 {
		files, err := WriteTensorBoard(out, runs)
		if err != nil || len(files) != 3 {
			t.Fatalf("written %v, %v", files, err)
		}
	}
	events, _ := filepath.Glob(filepath.Join(out, "*", "events.out.tfevents.*"))
	deeper, _ := filepath.Glob(filepath.Join(out, "sweep", "*", "events.out.tfevents.*"))
	if len(events) != 1 || len(deeper) != 2 || filepath.Base(events[0]) != "events.out.tfevents.1795867200.windtunnel" {
		t.Errorf("event files %v %v, want one per run", events, deeper)
	}
	if _, err := TensorBoardRuns([]string{one, one}); err == nil || !strings.Contains(err.Error(), `both be run "solo"`) {
		t.Errorf("the same run twice: %v", err)
	}
	if _, err := TensorBoardRuns([]string{filepath.Join(dir, "none")}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing path: %v", err)
	}
}

// TestTensorBoardProtoc: protoc (Google's protobuf compiler, when it is installed) decodes
// every record of the export by TensorFlow's message definitions (testdata/tbevent.proto)
// to the tags and values written.
func TestTensorBoardProtoc(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc not installed")
	}
	path := tbSession(t, t.TempDir(), "run")
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := TensorBoard(r, &b); err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, rec := range readRecords(t, b.Bytes()) {
		cmd := exec.Command(protoc, "--proto_path=testdata", "--decode=tensorflow.Event", "tbevent.proto")
		cmd.Stdin = bytes.NewReader(rec)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("protoc: %v: %s", err, out)
		}
		text = append(text, strings.Join(strings.Fields(string(out)), " "))
	}
	for i, want := range []string{
		`wall_time: 1795867200 file_version: "brain.Event:2"`,
		`step: 10 summary { value { tag: "loss" simple_value: 1.25 }`,
		`value { tag: "bits/a" simple_value: 0.25 }`,
		`value { tag: "kl_at_length/K16" simple_value: 0.5 }`,
		`value { tag: "attention_entropy" histo { min: 1 max: 3 num: 3 sum: 6 sum_squares: 14 bucket_limit: 1.6666666666666665 bucket_limit: 2.333333333333333 bucket_limit: 3.0000000000000004 bucket: 1 bucket: 1 bucket: 1 } }`,
	} {
		if !strings.Contains(strings.Join(text, "\n"), want) {
			t.Errorf("protoc's decoding lacks %d %q:\n%s", i, want, strings.Join(text, "\n"))
		}
	}
}

// TestTensorBoardReader: TensorBoard's own reader (its event multiplexer, as `tensorboard
// --logdir` loads a folder; testdata/tb_read.py), when python3 has the tensorboard
// package, finds one run per session and reads the scalars and the histogram written.
func TestTensorBoardReader(t *testing.T) {
	if testing.Short() {
		t.Skip("starts python3")
	}
	if err := exec.Command("python3", "-c", "import tensorboard").Run(); err != nil {
		t.Skip("python3 has no tensorboard package")
	}
	dir := t.TempDir()
	tbSession(t, filepath.Join(dir, "sweep"), "p0")
	runs, err := TensorBoardRuns([]string{filepath.Join(dir, "sweep")})
	if err != nil {
		t.Fatal(err)
	}
	logdir := filepath.Join(dir, "tb")
	if _, err := WriteTensorBoard(logdir, runs); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", filepath.Join("testdata", "tb_read.py"), logdir).Output()
	if err != nil {
		t.Fatalf("tb_read.py: %v", err)
	}
	var got map[string]struct {
		Scalars    map[string][][2]float64 `json:"scalars"`
		Histograms map[string][][]any      `json:"histograms"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("tb_read.py: %v: %s", err, out)
	}
	run, ok := got["sweep/p0"]
	if !ok || len(got) != 1 {
		t.Fatalf("runs %v, want sweep/p0", got)
	}
	for tag, want := range map[string]string{
		TagLoss:                  "[[1 2.5] [10 1.25] [20 1]]",
		TagBitsA:                 "[[10 0.25]]",
		"kl_at_length/K16":       "[[10 0.5]]",
		"attention_entropy/L1H0": "[[20 3]]",
	} {
		if s := fmt.Sprint(run.Scalars[tag]); s != want {
			t.Errorf("%s: %s, want %s", tag, s, want)
		}
	}
	if h := run.Histograms[TagAttentionEntropy]; len(h) != 1 || fmt.Sprint(h[0][:5]) != "[20 1 3 3 6]" {
		t.Errorf("attention entropy histogram %v", h)
	}
}

// TestTensorBoardUserMetrics: the user's metrics are tagged user/NAME, in the record's event
// at their step, else in an event of their own in step order at the wall time of the record
// before (before the first: the start).
func TestTensorBoardUserMetrics(t *testing.T) {
	path := tbSession(t, t.TempDir(), "run")
	if err := sessions.AddUserMetrics(path, []sessions.UserMetric{{Step: 99, Name: "late", Value: 4}, {Step: 10, Name: "probe/r2", Value: 0.5},
		{Step: 0, Name: "probe/r2", Value: 0.25}, {Step: 15, Name: "mid", Value: 2}, {Step: 15, Name: "probe/r2", Value: 0.75}}); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := TensorBoard(r, &b); err != nil {
		t.Fatal(err)
	}
	var got []string
	start := float64(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC).Unix())
	for _, rec := range readRecords(t, b.Bytes())[1:] {
		e, err := decodeEvent(rec)
		if err != nil {
			t.Fatal(err)
		}
		var users []string
		for tag, v := range e.scalars {
			if strings.HasPrefix(tag, TagUser) {
				users = append(users, fmt.Sprintf("%s=%v", tag, v))
			}
		}
		slices.Sort(users)
		got = append(got, fmt.Sprintf("%d@%v%v", e.step, e.wall-start, users))
	}
	want := "[0@0[user/probe/r2=0.25] 1@0.5[] 10@1.5[user/probe/r2=0.5] 15@1.5[user/mid=2 user/probe/r2=0.75] 20@3[] 99@3[user/late=4]]"
	if fmt.Sprint(got) != want {
		t.Errorf("events %v,\nwant %s", got, want)
	}
}

// TestTensorBoardSameStep: records at the step of the one before (a pause, the final
// record) add no second point to the training scalars; an evaluation among them still
// writes its scores.
func TestTensorBoardSameStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 5}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 5, Loss: 2, State: sessions.Training})
	w.Record(sessions.Record{Step: 5, Loss: 2, State: sessions.Paused})
	w.Record(sessions.Record{Step: 5, Loss: 2, State: sessions.Done, Eval: &sessions.Eval{KLBits: 0.5}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var b bytes.Buffer
	if err := TensorBoard(r, &b); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range readRecords(t, b.Bytes())[1:] {
		e, err := decodeEvent(rec)
		if err != nil {
			t.Fatal(err)
		}
		var tags []string
		for tag := range e.scalars {
			tags = append(tags, tag)
		}
		slices.Sort(tags)
		got = append(got, strings.Join(tags, ","))
	}
	if want := "[grad_norm,loss,lr accuracy,bits/a,bits/b,kl,tvd]"; fmt.Sprint(got) != want {
		t.Errorf("events' tags %v, want %s", got, want)
	}
}
