package sessions

import "encoding/json"

// The thinned reads of a session's curves (the dashboard's charts): a bounded number of
// records spread over the steps.

// Scalars returns up to max records with Step ≤ upTo, spaced evenly in steps (one index
// seek each), without snapshots.
func (r *Reader) Scalars(upTo, max int) ([]Record, error) {
	lo, hi, ok := r.Span()
	if !ok {
		return nil, nil
	}
	if upTo >= 0 && upTo < hi {
		hi = upTo
	}
	if hi < lo {
		return nil, nil
	}
	if max <= 0 || hi-lo+1 <= max {
		recs, _, err := r.query(`SELECT `+recordCols+` FROM records WHERE step <= ? ORDER BY seq`, false, hi)
		if err != nil {
			return nil, r.wrap("read", err)
		}
		return recs, nil
	}
	// One query for every thinned step (the driver parses a statement anew on each use,
	// so a query per step cost the dashboard a parse per point of the chart).
	at := Thin(hi-lo+1, max)
	for i := range at {
		at[i] += lo
	}
	steps, err := json.Marshal(at)
	if err != nil {
		return nil, r.wrap("read", err)
	}
	rows, err := r.db.Query(`SELECT `+recordCols+` FROM json_each(?) AS t JOIN records ON records.seq =
		(SELECT seq FROM records WHERE step <= t.value ORDER BY step DESC, seq DESC LIMIT 1) ORDER BY t.key`, string(steps))
	if err != nil {
		return nil, r.wrap("read", err)
	}
	defer rows.Close()
	out := make([]Record, 0, max)
	for rows.Next() {
		rec, _, err := scanRecord(rows, false)
		if err != nil {
			return nil, r.wrap("read", err)
		}
		if n := len(out); n == 0 || out[n-1].Step != rec.Step {
			out = append(out, rec)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, r.wrap("read", err)
	}
	return out, nil
}

// Evals returns the records carrying an evaluation with Step ≤ upTo, thinned to at most max.
func (r *Reader) Evals(upTo, max int) ([]Record, error) {
	if upTo < 0 {
		upTo = int(^uint(0) >> 1)
	}
	recs, _, err := r.query(`SELECT `+recordCols+` FROM records WHERE eval IS NOT NULL AND step <= ? ORDER BY seq`, false, upTo)
	if err != nil {
		return nil, r.wrap("read", err)
	}
	if max <= 0 || len(recs) <= max {
		return recs, nil
	}
	out := make([]Record, 0, max)
	for _, i := range Thin(len(recs), max) {
		out = append(out, recs[i])
	}
	return out, nil
}
