package sessions

import (
	"encoding/json"
	"fmt"
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
)

// checkMeta bounds the sizes a session's meta claims.
func checkMeta(m Meta) error {
	switch {
	case m.Layers < 0 || m.Layers > MaxLayers:
		return fmt.Errorf("%w: meta: %d layers (want 0..%d)", ErrNotSession, m.Layers, MaxLayers)
	case m.Heads < 0 || m.Heads > MaxHeads:
		return fmt.Errorf("%w: meta: %d heads (want 0..%d)", ErrNotSession, m.Heads, MaxHeads)
	case m.Steps < 0 || m.Params < 0:
		return fmt.Errorf("%w: meta: negative steps (%d) or parameters (%d)", ErrNotSession, m.Steps, m.Params)
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
	for _, e := range []*Effect{s.Costliest, s.CostliestHead} {
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
	if s.ProbeN < 0 || s.KeyOrthogonalityEmbedTokens < 0 {
		return fmt.Errorf("%w: snapshot: negative probe or token count", ErrNotSession)
	}
	return nil
}

// decodeSnapshot decodes and bounds a records.snapshot blob. JSON allocates in proportion
// to its input, so what it decodes is bounded by the blob (itself bounded by the file);
// check bounds what the snapshot claims beyond that.
func decodeSnapshot(b []byte) (*Snapshot, error) {
	s := new(Snapshot)
	if err := json.Unmarshal(b, s); err != nil {
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
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("%w: eval: %v", ErrNotSession, err)
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
	case len(j.Basis) != 0 && len(j.Basis) != len(j.Sites):
		return bad(fmt.Sprintf("%d bases for %d sites", len(j.Basis), len(j.Sites)))
	}
	for _, s := range j.Sites {
		if s < -1 || s >= MaxLayers {
			return bad(fmt.Sprintf("site %d", s))
		}
	}
	for _, b := range j.Basis {
		if len(b) != j.Width*j.Rank {
			return bad(fmt.Sprintf("basis of %d values (want %d×%d)", len(b), j.Width, j.Rank))
		}
	}
	return nil
}
