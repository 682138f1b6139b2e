package sessions

import "fmt"

// SnapshotsAt returns every snapshot recorded at exactly step, in the order written. An
// evaluation's attention summary (a snapshot of attention entropies alone) and a geometry
// snapshot may share a step: a run stopped right after a geometry snapshot records its end
// there too, so Snapshot(step) alone may return the summary.
func (r *Reader) SnapshotsAt(step int) ([]*Snapshot, error) {
	rows, err := r.db.Query(`SELECT seq FROM records WHERE snapshot IS NOT NULL AND step = ? ORDER BY seq`, step)
	if err != nil {
		return nil, r.wrap("read", err)
	}
	var seqs []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, r.wrap("read", err)
		}
		seqs = append(seqs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, r.wrap("read", err)
	}
	out := make([]*Snapshot, 0, len(seqs))
	for _, seq := range seqs {
		s := r.snaps.get(seq)
		if s == nil {
			var b []byte
			if err := r.db.QueryRow(`SELECT snapshot FROM records WHERE seq = ?`, seq).Scan(&b); err != nil {
				return nil, r.wrap("read", err)
			}
			if s, err = decodeSnapshot(b); err != nil {
				return nil, r.wrap("read", fmt.Errorf("record at step %d: %w", step, err))
			}
			r.snaps.put(seq, s)
		}
		out = append(out, s)
	}
	return out, nil
}

// IsGeometry reports whether s is a geometry snapshot, not an evaluation's attention summary
// (attention entropies alone).
func (s *Snapshot) IsGeometry() bool {
	return s != nil && (s.Frame != nil || s.Manifold != nil || s.Simplex != nil || s.JLens != nil || len(s.KeyOrthogonality) > 0 || len(s.Ablation) > 0)
}

// Geometry returns the newest geometry snapshot (IsGeometry) at or before step (step < 0:
// the newest) and its step; nil when there is none. Evaluations' attention summaries in
// between are passed over.
func (r *Reader) Geometry(step int) (*Snapshot, int, error) {
	steps, err := r.SnapshotSteps()
	if err != nil {
		return nil, 0, err
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if step >= 0 && steps[i] > step {
			continue
		}
		snaps, err := r.SnapshotsAt(steps[i])
		if err != nil {
			return nil, 0, err
		}
		for k := len(snaps) - 1; k >= 0; k-- {
			if snaps[k].IsGeometry() {
				return snaps[k], steps[i], nil
			}
		}
	}
	return nil, 0, nil
}

// JLensAt returns the J-lens recorded at exactly step: that of the snapshot written last
// there that holds one (an evaluation's attention summary at the same step does not hide
// it); nil without one.
func (r *Reader) JLensAt(step int) (*JLens, error) {
	snaps, err := r.SnapshotsAt(step)
	if err != nil {
		return nil, err
	}
	for k := len(snaps) - 1; k >= 0; k-- {
		if snaps[k].JLens != nil {
			return snaps[k].JLens, nil
		}
	}
	return nil, nil
}
