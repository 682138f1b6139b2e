package tunnels

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// sampleLine is one line of WriteJSON.
type sampleLine struct {
	Task  string `json:"task"`
	Index int    `json:"index"`
	Sequence
}

// WriteJSON writes sequences 0..n-1 of stream (TrainStream or ProbeStream of a seed) of t
// as JSON Lines (windtunnel sample --json): the task, the index and the Sequence (tokens,
// scored positions, targets, exact posteriors and their entropies in bits).
func WriteJSON(w io.Writer, t Tunnel, stream uint64, n int) error {
	enc := json.NewEncoder(w)
	var s Sequence
	for i := 0; i < n; i++ {
		t.Fill(&s, stream, uint64(i))
		if err := enc.Encode(sampleLine{Task: t.Name(), Index: i, Sequence: s}); err != nil {
			return fmt.Errorf("tunnels: write: %w", err)
		}
	}
	return nil
}

// WriteTable writes sequences 0..n-1 of stream of t as readable tables (windtunnel
// sample): the tokens, then per scored position its token, target, entropy and posterior.
func WriteTable(w io.Writer, t Tunnel, stream uint64, n int) error {
	var s Sequence
	for i := 0; i < n; i++ {
		t.Fill(&s, stream, uint64(i))
		fmt.Fprintf(w, "# %s sequence %d: %d tokens, %d scored positions, %d classes\n", t.Name(), i, len(s.Tokens), len(s.Positions), t.Classes())
		fmt.Fprintf(w, "tokens: %s\n", ints(s.Tokens))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "pos\ttoken\ttarget\tH bits\tposterior (nonzero: class=p)")
		for j, p := range s.Positions {
			var parts []string
			for c, v := range s.Posterior[j] {
				if v > 0 {
					parts = append(parts, fmt.Sprintf("%d=%.3f", c, v))
				}
			}
			post := strings.Join(parts, " ")
			if len(parts) > 8 {
				post = strings.Join(parts[:8], " ") + fmt.Sprintf(" … (%d classes)", len(parts))
			}
			fmt.Fprintf(tw, "%d\t%d\t%d\t%.4f\t%s\n", p, s.Tokens[p], s.Targets[j], s.EntropyBits[j], post)
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("tunnels: write: %w", err)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// ints is xs separated by spaces.
func ints(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}
