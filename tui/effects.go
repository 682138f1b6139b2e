package tui

import (
	"fmt"
	"math"
	"sort"
	"windtunnel/diagnostics"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// effects is the snapshot's ablation table as the pane shows it: the per-head Δ and the
// costliest head as the lab recorded them, and the other units indexed by layer.
type effects struct {
	at        int
	probeN    int
	delta     [][]sessions.Num           // Δ bits (a) per [layer][head], NaN where not measured (nil: not recorded)
	measured  bool                       // delta holds at least one head
	headUnits bool                       // the table has head effects (to tell an old session from a model without heads)
	costliest *diagnostics.Effect        // the costliest head (nil: none, not recorded, or none costs bits: diagnostics.Costly)
	noneCosts bool                       // a worst head was recorded and its Δ ≤ 0: zeroing any head helps or is free
	units     []string                   // the non-head units present, in order attn, mlp, layer, others
	byLayer   map[int]map[string]float64 // layer → unit → Δbits
	layers    []int
}

// readEffects reads the ablation table of the current geometry snapshot (nil when there is
// none).
func (p *ablationPane) readEffects() *effects {
	sh := p.sh
	if sh.geo == nil || len(sh.geo.Ablation) == 0 {
		return nil
	}
	g := sh.geo
	e := &effects{at: sh.geoAt, probeN: g.ProbeN, delta: g.HeadDelta, costliest: diagnostics.Costly(g.CostliestHead), byLayer: map[int]map[string]float64{}}
	e.noneCosts = g.CostliestHead != nil && e.costliest == nil
	for _, row := range g.HeadDelta {
		for _, v := range row {
			e.measured = e.measured || !math.IsNaN(float64(v))
		}
	}
	seen := map[string]bool{}
	for _, ef := range g.Ablation {
		if ef.Unit == "head" {
			e.headUnits = true
			continue
		}
		if e.byLayer[ef.Layer] == nil {
			e.byLayer[ef.Layer] = map[string]float64{}
			e.layers = append(e.layers, ef.Layer)
		}
		e.byLayer[ef.Layer][ef.Unit] = ef.DeltaBits
		seen[ef.Unit] = true
	}
	sort.Ints(e.layers)
	for _, u := range []string{"attn", "mlp", "layer"} {
		if seen[u] {
			e.units = append(e.units, u)
			delete(seen, u)
		}
	}
	rest := make([]string, 0, len(seen))
	for u := range seen {
		rest = append(rest, u)
	}
	sort.Strings(rest)
	e.units = append(e.units, rest...)
	return e
}

// headDelta is the recorded Δ bits (a) of head h of layer l, and whether it was measured.
func (e *effects) headDelta(l, h int) (float64, bool) {
	if l < 0 || l >= len(e.delta) || h < 0 || h >= len(e.delta[l]) {
		return math.NaN(), false
	}
	v := float64(e.delta[l][h])
	return v, !math.IsNaN(v)
}

// unrecorded reports whether the table has heads but the snapshot no head table: a session
// written before the lab recorded it.
func (e *effects) unrecorded() bool { return e.delta == nil && e.headUnits }

// isCostliest reports whether head h of layer l is the recorded costliest head.
func (e *effects) isCostliest(l, h int) bool {
	return e.costliest != nil && e.costliest.Layer == l && e.costliest.Head == h
}

// probeNote is " (n=256)" for the probe sequences, or "".
func probeNote(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" (n=%d)", n)
}

// unitsTable lists the layers' non-head units with their Δbits, a header and at most
// rows lines.
func (p *ablationPane) unitsTable(eff *effects, rows int) []string {
	if len(eff.units) == 0 || rows < 2 {
		return nil
	}
	labelW := 0
	for _, l := range eff.layers {
		labelW = max(labelW, len(fmt.Sprintf("L%d", l)))
	}
	hdr := look.PadLine("Δbits", max(labelW, 5))
	for _, u := range eff.units {
		hdr += " " + look.PadLine(fmt.Sprintf("%6s", u), 7)
	}
	out := []string{p.sh.st.Dim.Render(hdr)}
	for i, l := range eff.layers {
		if len(out) == rows-1 && i < len(eff.layers)-1 {
			out = append(out, p.sh.st.Dim.Render(fmt.Sprintf("… %d more", len(eff.layers)-i)))
			break
		}
		line := look.PadLine(fmt.Sprintf("L%d", l), max(labelW, 5))
		for _, u := range eff.units {
			v, ok := eff.byLayer[l][u]
			s := "     ·"
			if ok {
				s = fmt.Sprintf("%6s", fsigned(v, 3))
			}
			line += " " + look.PadLine(s, 7)
		}
		out = append(out, line)
	}
	return out
}
