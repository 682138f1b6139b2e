package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"windtunnel/sessions"
)

// session writes a session of three records: a training step with a message a spreadsheet
// would read as a formula, an evaluation with per-position curves (one KL not finite), and
// an operator event.
func session(t *testing.T) *sessions.Reader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.wtlab")
	w, err := sessions.Create(path, sessions.Meta{Task: "bijection", Model: "transformer", Steps: 2}, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Record(sessions.Record{Step: 1, Loss: 2.5, State: sessions.Training, Message: "=HYPERLINK(1)"})
	w.Event(sessions.Event{Step: 1, Kind: sessions.EventPause, By: "@op"})
	w.Record(sessions.Record{Step: 2, Loss: 1.5, State: sessions.Done, Eval: &sessions.Eval{BitErrorPosition: 0.25, Accuracy: 0.5,
		ModelEntropy: []float64{1, 2}, BayesEntropy: []float64{1.5, 1}, KLByPosition: []sessions.Num{0.5, sessions.Num(math.NaN())}}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := sessions.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRecords: scalars and per-position rows in CSV and JSON Lines carry the recorded
// numbers (bit error = |H(q) − H(p*)| per position), a text cell that starts like a formula
// is quoted as text, and a non-finite number is NaN in CSV and null in JSON.
func TestRecords(t *testing.T) {
	r := session(t)
	var b bytes.Buffer
	if err := Records(r, &b, "csv", "scalars"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "step" || rows[1][14] != "'=HYPERLINK(1)" || rows[2][8] != "0.25" || rows[2][7] != "done" {
		t.Fatalf("scalars CSV %q, %v", rows, err)
	}
	b.Reset()
	if err := Records(r, &b, "csv", "per-position"); err != nil {
		t.Fatal(err)
	}
	rows, err = csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][5] != "0.5" || rows[2][5] != "1" || rows[1][6] != "0.5" || rows[2][6] != "NaN" {
		t.Fatalf("per-position CSV %q, %v", rows, err)
	}
	b.Reset()
	if err := Records(r, &b, "jsonl", "per-position"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var last map[string]any
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &last) != nil || last["kl_bits"] != nil || last["bit_error_bits"] != 1.0 {
		t.Fatalf("per-position JSON Lines %q", lines)
	}
}

// TestEvents: the operator's events in order, the text cells made safe as in Records.
func TestEvents(t *testing.T) {
	r := session(t)
	var b bytes.Buffer
	if err := Events(r, &b, "csv"); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][2] != string(sessions.EventPause) || rows[1][6] != "'@op" {
		t.Fatalf("events CSV %q, %v", rows, err)
	}
}
