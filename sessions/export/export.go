package export

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"windtunnel/sessions"
)

// Records writes a session's records as CSV (format "csv") or JSON Lines ("jsonl"): what is
// "scalars" (a row per record: loss, learning rate, gradient norm, speed, state and the
// evaluation's scores), "per-position" (a row per evaluation and scored position: the
// model's and the Bayes entropy, bit error, KL, TVD) or "snapshots" (a JSON line per
// geometry snapshot, as recorded; JSON Lines only). It reads the session in chunks of
// steps, so a long session never sits in memory.
func Records(r *sessions.Reader, w io.Writer, format, what string) error {
	cw := csv.NewWriter(w)
	enc := json.NewEncoder(w)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if format == "csv" {
		head := []string{"step", "wall_s", "loss", "lr", "grad_norm", "steps_per_s", "gpu_share", "state", "bit_error_position", "bit_error_sample", "kl_bits", "tvd", "accuracy", "ablated", "message"}
		if what == "per-position" {
			head = []string{"step", "ablated", "position", "model_entropy_bits", "bayes_entropy_bits", "bit_error_bits", "kl_bits", "tvd"}
		}
		cw.Write(head)
	}
	// Heads switched off, by name (L0H1: never read as a number), space-separated in CSV,
	// a list in JSON Lines.
	ablated := func(e *sessions.Eval) string { return strings.Join(sessions.HeadNames(e.Ablated), " ") }
	err := eachChunk(r, func(recs []sessions.Record) error {
		for _, rec := range recs {
			switch {
			case what == "snapshots":
				if rec.Snapshot == nil {
					continue
				}
				if err := enc.Encode(map[string]any{"step": rec.Step, "wall_s": sessions.Num(rec.WallS), "snapshot": rec.Snapshot}); err != nil {
					return fmt.Errorf("export: snapshot at step %d: %w", rec.Step, err)
				}
			case what == "scalars" && format == "jsonl":
				rec.Snapshot = nil
				if rec.Eval != nil {
					e := *rec.Eval
					e.ModelEntropy, e.BayesEntropy, e.KLByPosition, e.TVDByPosition = nil, nil, nil, nil
					rec.Eval = &e
				}
				m, err := jsonRecord(rec)
				if err != nil {
					return err
				}
				if ev, ok := m["eval"].(map[string]any); ok && len(rec.Eval.Ablated) > 0 {
					ev["ablated"] = sessions.HeadNames(rec.Eval.Ablated)
				}
				m["gpu_share"] = sessions.Num(rec.GPUShare)
				if err := enc.Encode(m); err != nil {
					return fmt.Errorf("export: %w", err)
				}
			case what == "scalars":
				row := []string{strconv.Itoa(rec.Step), f(rec.WallS), f(rec.Loss), f(rec.LR), f(rec.GradNorm), f(rec.StepsPerS), f(rec.GPUShare), csvText(string(rec.State)), "", "", "", "", "", "", csvText(rec.Message)}
				if e := rec.Eval; e != nil {
					row[8], row[9], row[10], row[11], row[12], row[13] = f(e.BitErrorPosition), f(e.BitErrorSample), f(e.KLBits), f(e.TVD), f(e.Accuracy), ablated(e)
				}
				cw.Write(row)
			case rec.Eval != nil && format == "jsonl":
				for p := range rec.Eval.ModelEntropy {
					row := map[string]any{"step": rec.Step, "ablated": sessions.HeadNames(rec.Eval.Ablated), "position": p,
						"model_entropy_bits": sessions.Num(rec.Eval.ModelEntropy[p]), "bayes_entropy_bits": sessions.Num(rec.Eval.BayesEntropy[p]),
						"bit_error_bits": sessions.Num(math.Abs(rec.Eval.ModelEntropy[p] - rec.Eval.BayesEntropy[p])), "kl_bits": jsonAt(rec.Eval.KLByPosition, p),
						"tvd": jsonAt(rec.Eval.TVDByPosition, p)}
					if err := enc.Encode(row); err != nil {
						return fmt.Errorf("export: %w", err)
					}
				}
			case rec.Eval != nil:
				for p := range rec.Eval.ModelEntropy {
					cw.Write([]string{strconv.Itoa(rec.Step), ablated(rec.Eval), strconv.Itoa(p), f(rec.Eval.ModelEntropy[p]), f(rec.Eval.BayesEntropy[p]),
						f(math.Abs(rec.Eval.ModelEntropy[p] - rec.Eval.BayesEntropy[p])), csvAt(rec.Eval.KLByPosition, p), csvAt(rec.Eval.TVDByPosition, p)})
				}
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// eachChunk calls f with the session's records (snapshots included) in chunks of at most
// 5000 steps, in order, so that a long session never sits in memory.
func eachChunk(r *sessions.Reader, f func([]sessions.Record) error) error {
	const chunk = 5000
	lo, hi, ok := r.Span()
	for from, more := lo, ok && lo <= hi; more; {
		// Overflow-safe whatever the file holds: to never passes hi, and from = to+1 only
		// while to < hi.
		to := hi
		if uint64(hi)-uint64(from) >= chunk {
			to = from + chunk - 1
		}
		recs, err := r.Records(from, to)
		if err != nil {
			return err
		}
		more, from = to < hi, to+1
		if err := f(recs); err != nil {
			return err
		}
	}
	return nil
}

// csvText is a text cell of a CSV export: made safe to print (sessions.SafeText; the reader
// has done so already) and, when it starts with =, +, -, @, a tab or a carriage return,
// prefixed with ' so that a spreadsheet opening the export shows it as text instead of
// evaluating it as a formula (CSV injection). Numbers are written by the exporter itself
// and never pass through it.
func csvText(s string) string {
	s = sessions.SafeText(s)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// csvAt is the CSV cell of xs[p]: empty when the session did not record the curve, NaN for
// a non-finite value (recorded as null).
func csvAt(xs []sessions.Num, p int) string {
	if p >= len(xs) {
		return ""
	}
	return strconv.FormatFloat(float64(xs[p]), 'g', -1, 64)
}

// jsonAt is the JSON value of xs[p]: null when the session did not record the curve (or the
// value is non-finite).
func jsonAt(xs []sessions.Num, p int) any {
	if p >= len(xs) {
		return nil
	}
	return xs[p]
}

// jsonRecord is a record as a JSON object (non-finite numbers, a diverged loss, as null:
// sessions.Record encodes them so).
func jsonRecord(r sessions.Record) (map[string]any, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("export: record at step %d: %w", r.Step, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("export: record at step %d: %w", r.Step, err)
	}
	return m, nil
}

// Events writes the operator events (pause, resume, stop, head switches) in order, as CSV
// or JSON Lines.
func Events(r *sessions.Reader, w io.Writer, format string) error {
	evs, err := r.Events(-1)
	if err != nil {
		return fmt.Errorf("export: events: %w", err)
	}
	if format == "jsonl" {
		enc := json.NewEncoder(w)
		for _, e := range evs {
			m := map[string]any{"step": e.Step, "wall_s": sessions.Num(e.WallS), "kind": e.Kind, "layer": e.Layer, "head": e.Head, "on": e.On, "by": e.By}
			if err := enc.Encode(m); err != nil {
				return fmt.Errorf("export: events: %w", err)
			}
		}
		return nil
	}
	cw := csv.NewWriter(w)
	cw.Write([]string{"step", "wall_s", "kind", "layer", "head", "on", "by"})
	for _, e := range evs {
		cw.Write([]string{strconv.Itoa(e.Step), strconv.FormatFloat(e.WallS, 'g', -1, 64), csvText(string(e.Kind)),
			strconv.Itoa(e.Layer), strconv.Itoa(e.Head), strconv.FormatBool(e.On), csvText(e.By)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("export: events: %w", err)
	}
	return nil
}
