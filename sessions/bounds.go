package sessions

import (
	"database/sql"
	"errors"
	"fmt"
	"windtunnel/backends/untrusted"
	"windtunnel/diagnostics"
)

// A session file is untrusted input (sessions are shared between colleagues): everything
// decoded from it is checked against these bounds before anything is sized from it (the
// ablation grid, the head maps of the dashboard and figures), and a value beyond them makes
// the file "not a session" (ErrNotSession). They are far above what any model the tool
// builds can have (at most 64 layers; heads divide a width of at most 4096).
const (
	// MaxLayers is the most layers a session may describe.
	MaxLayers = 1024
	// MaxHeads is the most attention heads per layer a session may describe.
	MaxHeads = 4096
	// MaxSteps is the longest run a session may describe (a meta's planned steps, the step
	// of a record, event or checkpoint): the trainer's own limit.
	MaxSteps = 100_000_000
	// MaxParams is the most parameters a meta may claim.
	MaxParams = 1 << 40
	// MaxPositions bounds a sequence's scored positions in a session (per-position curves,
	// a length-generalisation K, the QK map's positions), far above any tunnel's.
	MaxPositions = 1 << 16
	// maxSimplexStates is the most hidden states a belief-simplex measurement may name (the
	// hmm tunnel's are at most 20).
	maxSimplexStates = 64
	// maxLengths is the most sequence lengths a length-generalisation curve may hold.
	maxLengths = 256
)

// checkStep bounds the step a record, event or checkpoint names.
func checkStep(what string, step int) error {
	if step < 0 || step > MaxSteps {
		return fmt.Errorf("%w: %s at step %d (want 0..%d)", ErrNotSession, what, step, MaxSteps)
	}
	return nil
}

// checkSteps bounds the steps a session's tables hold, once, when it is opened: each table's
// least and greatest step (SQLite orders text and blobs after every number, so the greatest
// is the one that is not an integer if any is) must be integers in 0..MaxSteps, and so must
// every other. Every reader then computes with steps in that range (a span read from the
// file, a count of steps), and no loop over them can wrap around. Two index seeks and one
// pass over the step index per table.
func checkSteps(db *sql.DB) error {
	for _, table := range []string{"records", "events", "checkpoints"} {
		for _, agg := range []string{"min", "max"} {
			var v any
			if err := db.QueryRow(`SELECT ` + agg + `(step) FROM ` + table).Scan(&v); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrNotSession, table, err)
			}
			if v == nil { // an empty table
				continue
			}
			n, ok := v.(int64)
			if !ok {
				return fmt.Errorf("%w: %s: a step that is not an integer (%.40q)", ErrNotSession, table, fmt.Sprint(v))
			}
			if n < 0 || n > MaxSteps {
				return fmt.Errorf("%w: %s: a step %d (want 0..%d)", ErrNotSession, table, n, MaxSteps)
			}
		}
		// A real between two integers is neither least nor greatest: one pass over the
		// step index finds it.
		var v any
		err := db.QueryRow(`SELECT step FROM ` + table + ` WHERE typeof(step) != 'integer' LIMIT 1`).Scan(&v)
		if err == nil {
			return fmt.Errorf("%w: %s: a step that is not an integer (%.40q)", ErrNotSession, table, fmt.Sprint(v))
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %s: %v", ErrNotSession, table, err)
		}
	}
	return nil
}

// checkEval bounds a decoded evaluation's per-position curves (one length, the positions
// scored) and length scores.
func checkEval(e *evalBlob) error {
	for _, n := range []int{len(e.ModelEntropy), len(e.BayesEntropy), len(e.KLByPosition), len(e.TVDByPosition)} {
		if n > MaxPositions {
			return fmt.Errorf("%w: eval: a per-position curve of %d positions (want ≤ %d)", ErrNotSession, n, MaxPositions)
		}
	}
	// The curves are read position by position together: they hold one value per position.
	n := len(e.ModelEntropy)
	if len(e.BayesEntropy) != n || (e.KLByPosition != nil && len(e.KLByPosition) != n) || (e.TVDByPosition != nil && len(e.TVDByPosition) != n) {
		return fmt.Errorf("%w: eval: per-position curves of %d, %d, %d and %d positions (want one length)", ErrNotSession,
			n, len(e.BayesEntropy), len(e.KLByPosition), len(e.TVDByPosition))
	}
	if len(e.Lengths) > maxLengths {
		return fmt.Errorf("%w: eval: %d lengths (want ≤ %d)", ErrNotSession, len(e.Lengths), maxLengths)
	}
	for _, l := range e.Lengths {
		if l.K < 0 || l.K > MaxPositions || len(l.KLByPosition) > MaxPositions {
			return fmt.Errorf("%w: eval: length K=%d with %d positions (want ≤ %d)", ErrNotSession, l.K, len(l.KLByPosition), MaxPositions)
		}
	}
	return nil
}

// checkMeta bounds the sizes a session's meta claims.
func checkMeta(m Meta) error {
	switch {
	case m.Layers < 0 || m.Layers > MaxLayers:
		return fmt.Errorf("%w: meta: %d layers (want 0..%d)", ErrNotSession, m.Layers, MaxLayers)
	case m.Heads < 0 || m.Heads > MaxHeads:
		return fmt.Errorf("%w: meta: %d heads (want 0..%d)", ErrNotSession, m.Heads, MaxHeads)
	case m.Steps < 0 || m.Steps > MaxSteps:
		return fmt.Errorf("%w: meta: %d steps planned (want 0..%d)", ErrNotSession, m.Steps, MaxSteps)
	case m.Params < 0 || m.Params > MaxParams:
		return fmt.Errorf("%w: meta: %d parameters (want 0..%d)", ErrNotSession, m.Params, int64(MaxParams))
	}
	return nil
}

// checkHead bounds one head (or, with head −1, one layer) named by a record or event.
func checkHead(what string, layer, head int) error {
	if layer < -1 || layer >= MaxLayers || head < -1 || head >= MaxHeads {
		return fmt.Errorf("%w: %s: layer %d head %d out of range", ErrNotSession, what, layer, head)
	}
	return nil
}

// checkGrid bounds a [layer][head] table.
func checkGrid[T any](what string, g [][]T) error {
	if len(g) > MaxLayers {
		return fmt.Errorf("%w: snapshot %s: %d layers (want ≤ %d)", ErrNotSession, what, len(g), MaxLayers)
	}
	for _, row := range g {
		if len(row) > MaxHeads {
			return fmt.Errorf("%w: snapshot %s: %d heads (want ≤ %d)", ErrNotSession, what, len(row), MaxHeads)
		}
	}
	return nil
}

// check bounds what a decoded snapshot claims: its per-layer tables, the layers and heads
// its ablation names and the per-layer series of its frame history.
func (s *Snapshot) check() error {
	grids := []struct {
		name string
		g    [][]float64
	}{
		{"attention_entropy", s.AttentionEntropy}, {"attention_mass", s.AttentionMass},
		{"key_orthogonality", s.KeyOrthogonality}, {"key_orthogonality_embed", s.KeyOrthogonalityEmbed},
		{"key_orthogonality_embed_init", s.KeyOrthogonalityEmbedInit},
	}
	for _, g := range grids {
		if err := checkGrid(g.name, g.g); err != nil {
			return err
		}
	}
	if err := checkGrid("head_delta", s.HeadDelta); err != nil {
		return err
	}
	if len(s.QKAlignment) > MaxLayers {
		return fmt.Errorf("%w: snapshot qk_alignment: %d layers (want ≤ %d)", ErrNotSession, len(s.QKAlignment), MaxLayers)
	}
	for _, e := range s.Ablation {
		if err := checkHead("snapshot ablation", e.Layer, e.Head); err != nil {
			return err
		}
	}
	for _, e := range []*diagnostics.Effect{s.Costliest, s.CostliestHead} {
		if e == nil {
			continue
		}
		if err := checkHead("snapshot costliest", e.Layer, e.Head); err != nil {
			return err
		}
	}
	if s.Frame != nil {
		for _, p := range s.Frame.Points {
			if len(p.Drift) > MaxLayers || len(p.ToLatest) > MaxLayers || len(p.JLens) > MaxLayers+1 {
				return fmt.Errorf("%w: snapshot frame at step %d: more than %d layers", ErrNotSession, p.Step, MaxLayers)
			}
		}
	}
	if j := s.JLens; j != nil {
		if err := j.check(); err != nil {
			return err
		}
	}
	if s.ProbeN < 0 || s.ProbeN > MaxPositions*MaxPositions || s.KeyOrthogonalityEmbedTokens < 0 || s.KeyOrthogonalityEmbedTokens > MaxPositions {
		return fmt.Errorf("%w: snapshot: probe count %d or token count %d out of range", ErrNotSession, s.ProbeN, s.KeyOrthogonalityEmbedTokens)
	}
	if len(s.QKPositions) > MaxPositions {
		return fmt.Errorf("%w: snapshot qk_positions: %d positions (want ≤ %d)", ErrNotSession, len(s.QKPositions), MaxPositions)
	}
	for _, p := range s.QKPositions {
		if p < 0 || p > MaxPositions {
			return fmt.Errorf("%w: snapshot qk_positions: position %d (want 0..%d)", ErrNotSession, p, MaxPositions)
		}
	}
	for _, sx := range []*Simplex{s.Simplex, s.SimplexInit} {
		if err := sx.check(); err != nil {
			return err
		}
	}
	if s.Frame != nil {
		for _, p := range s.Frame.Points {
			if err := checkStep("snapshot frame point", p.Step); err != nil {
				return err
			}
		}
	}
	return nil
}

// check bounds a belief-simplex measurement (nil passes): its states, the corners it
// measures, and each drawn point's argmax state within them.
func (sx *Simplex) check() error {
	if sx == nil {
		return nil
	}
	if sx.States < 0 || sx.States > maxSimplexStates || len(sx.CornerDist) > maxSimplexStates || sx.N < 0 {
		return fmt.Errorf("%w: snapshot simplex: %d states, %d corners, %d points (want 0..%d states)", ErrNotSession, sx.States, len(sx.CornerDist), sx.N, maxSimplexStates)
	}
	for _, a := range sx.Argmax {
		if a < 0 || a >= max(sx.States, 1) {
			return fmt.Errorf("%w: snapshot simplex: argmax state %d of %d", ErrNotSession, a, sx.States)
		}
	}
	return nil
}

// decodeSnapshot decodes and bounds a records.snapshot blob. JSON allocates in proportion
// to its input, so what it decodes is bounded by the blob (itself bounded by the file);
// check bounds what the snapshot claims beyond that.
func decodeSnapshot(b []byte) (*Snapshot, error) {
	s := new(Snapshot)
	if err := untrusted.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("%w: snapshot: %v", ErrNotSession, err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// decodeEval decodes and bounds a records.eval blob.
func decodeEval(b []byte) (evalBlob, error) {
	var e evalBlob
	if err := untrusted.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("%w: eval: %v", ErrNotSession, err)
	}
	if err := checkEval(&e); err != nil {
		return e, err
	}
	for _, h := range e.Ablated {
		if err := checkHead("eval ablated", h.Layer, h.Head); err != nil {
			return e, err
		}
	}
	return e, nil
}

// MaxWidth is the widest residual stream a session may describe (the models' limit).
const MaxWidth = 4096

// check bounds a J-lens record: its sites are layers, and its bases fit its width and ranks.
func (j *JLens) check() error {
	bad := func(what string) error { return fmt.Errorf("%w: snapshot jlens: %s", ErrNotSession, what) }
	switch {
	case j.Width < 1 || j.Width > MaxWidth:
		return bad(fmt.Sprintf("width %d (want 1..%d)", j.Width, MaxWidth))
	case j.Rank < 0 || j.Rank > j.Width || j.FrameRank < 0 || j.FrameRank > j.Width:
		return bad(fmt.Sprintf("ranks %d and %d at width %d", j.Rank, j.FrameRank, j.Width))
	case len(j.Sites) > MaxLayers+1 || len(j.Overlap) != len(j.Sites):
		return bad(fmt.Sprintf("%d sites with %d overlaps", len(j.Sites), len(j.Overlap)))
	case len(j.Frame) != 0 && len(j.Frame) != j.Width*j.FrameRank:
		return bad(fmt.Sprintf("frame basis of %d values (want %d×%d)", len(j.Frame), j.Width, j.FrameRank))
	case len(j.Positions) > MaxPositions:
		return bad(fmt.Sprintf("%d positions (want ≤ %d)", len(j.Positions), MaxPositions))
	case len(j.Basis) != 0 && len(j.Basis) != len(j.Sites)*max(1, len(j.Positions)):
		return bad(fmt.Sprintf("%d bases for %d sites and %d positions", len(j.Basis), len(j.Sites), len(j.Positions)))
	case len(j.PositionOverlap) != 0 && len(j.PositionOverlap) != len(j.Sites), len(j.Gap) != 0 && len(j.Gap) != len(j.Sites):
		return bad(fmt.Sprintf("%d sites with %d position overlaps and %d gaps", len(j.Sites), len(j.PositionOverlap), len(j.Gap)))
	}
	for si := range j.PositionOverlap {
		if len(j.PositionOverlap[si]) != len(j.Positions) || (len(j.Gap) > 0 && len(j.Gap[si]) != len(j.Positions)) {
			return bad(fmt.Sprintf("site %d: values for %d positions (want %d)", si, len(j.PositionOverlap[si]), len(j.Positions)))
		}
	}
	for _, s := range j.Sites {
		if s < -1 || s >= MaxLayers {
			return bad(fmt.Sprintf("site %d", s))
		}
	}
	for _, p := range j.Positions {
		if p < 0 || p > MaxPositions {
			return bad(fmt.Sprintf("position %d", p))
		}
	}
	for _, b := range j.Basis {
		if len(b) != j.Width*j.Rank {
			return bad(fmt.Sprintf("basis of %d values (want %d×%d)", len(b), j.Width, j.Rank))
		}
	}
	return nil
}

// Check bounds what a meta from elsewhere (a control socket's hello) claims, as a session's
// meta is bounded when it is opened; the error wraps ErrNotSession.
func (m Meta) Check() error { return checkMeta(m) }

// Check bounds what a record from elsewhere (a control socket) claims, as a session's
// records are bounded when they are read: its step, its evaluation's curves and heads and
// its snapshot. The error wraps ErrNotSession.
func (r *Record) Check() error {
	if err := checkStep("record", r.Step); err != nil {
		return err
	}
	if e := r.Eval; e != nil {
		b := evalBlob{ModelEntropy: toNums(e.ModelEntropy), BayesEntropy: toNums(e.BayesEntropy), Lengths: e.Lengths,
			KLByPosition: e.KLByPosition, TVDByPosition: e.TVDByPosition}
		if err := checkEval(&b); err != nil {
			return err
		}
		for _, h := range e.Ablated {
			if err := checkHead("eval ablated", h.Layer, h.Head); err != nil {
				return err
			}
		}
	}
	if r.Snapshot != nil {
		return r.Snapshot.check()
	}
	return nil
}

// Check bounds the step and head an event from elsewhere (a control socket) names; the
// error wraps ErrNotSession.
func (e Event) Check() error {
	if err := checkStep("event", e.Step); err != nil {
		return err
	}
	return checkHead("event", e.Layer, e.Head)
}

// Check reads what a viewer reads first, and would otherwise meet only while it draws: the
// newest record with its snapshot, every evaluation, every event and the checkpoints' steps.
// It returns the first error (a record that does not decode, a head or step out of range),
// naming the file, so that a viewer can refuse a bad session on the screen before it starts.
func (r *Reader) Check() error {
	if _, _, err := r.At(-1); err != nil {
		return err
	}
	if _, err := r.Evals(-1, 0); err != nil {
		return err
	}
	if _, err := r.Events(-1); err != nil {
		return err
	}
	_, err := r.Checkpoints()
	return err
}
