package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"windtunnel/diagnostics"
	"windtunnel/tunnels"
)

// maxScoreLine bounds one input line of score (one sequence with its distributions).
const maxScoreLine = 16 << 20

// normTolerance is how far from 1 a probability row may sum without --logits.
const normTolerance = 1e-6

func newScoreCmd(stdout io.Writer) *cobra.Command {
	var tf tunnelFlags
	var logits, asJSON bool
	c := &cobra.Command{
		Use:   "score",
		Short: "Score an outside model's predictions (JSON Lines on stdin) against the exact posterior",
		Long: "score reads JSON Lines on stdin, one sequence a line: {\"tokens\": [...], \"model\": [[...], ...]},\n" +
			"the model's distribution over the task's classes at each scored position (probabilities, or\n" +
			"logits with --logits). It recomputes the exact posterior from the tokens and prints bit error (a)\n" +
			"and (b), KL, TVD, accuracy and the per-position curves. `run --predictions` and `sample --json`\n" +
			"lines (with a \"model\" field added) are accepted as they are. Without --task the first line's\n" +
			"\"task\" field names it.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := tf.checkExplicit(cmd.Flags()); err != nil {
				return err
			}
			explicit := cmd.Flags().Changed("task")
			if explicit {
				if _, err := tf.build(); err != nil {
					return err
				}
				if err := checkApplies(cmd.Flags(), tf.task, ""); err != nil {
					return err
				}
			}
			res, err := scoreStream(cmd.InOrStdin(), &tf, explicit, logits)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(stdout)
			if asJSON {
				if err := json.NewEncoder(w).Encode(res); err != nil {
					return fmt.Errorf("score: write: %w", err)
				}
			} else if err := scoreText(w, res); err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("score: write: %w", err)
			}
			return nil
		},
	}
	tf.register(c.Flags(), "")
	tf.registerPreset(c.Flags())
	c.Flags().BoolVar(&logits, "logits", false, "the model rows are logits (softmax is applied), not probabilities")
	jsonFlag(c.Flags(), &asJSON, "the scores as one JSON object")
	return c
}

// scoreResult is what score prints: the scores of every line read together.
type scoreResult struct {
	Task      string `json:"task"`
	Sequences int    `json:"sequences"`
	Positions []int  `json:"positions"`
	Classes   int    `json:"classes"`
	diagnostics.Scores
}

// scoreLine is one input line; fields of `sample --json` and `run --predictions` not read
// here (index, targets, posterior, entropy_bits) are ignored: the posterior is recomputed.
type scoreLine struct {
	Task      string       `json:"task"`
	Tokens    []int        `json:"tokens"`
	Positions []int        `json:"positions"`
	Model     [][]inputNum `json:"model"`
}

// inputNum is a number of a model row; NaN and ±Infinity (as Python's json writes them)
// and null decode as NaN or ±Inf so that they are reported as such, not as bad JSON.
type inputNum float64

// UnmarshalJSON implements json.Unmarshaler.
func (n *inputNum) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null", `"NaN"`:
		*n = inputNum(math.NaN())
		return nil
	case `"Infinity"`:
		*n = inputNum(math.Inf(1))
		return nil
	case `"-Infinity"`:
		*n = inputNum(math.Inf(-1))
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("not a number: %s", b)
	}
	*n = inputNum(f)
	return nil
}

// quoteNonFinite turns the bare NaN, Infinity and -Infinity literals outside strings into
// strings, which inputNum reads.
func quoteNonFinite(b []byte) []byte {
	if !bytes.Contains(b, []byte("NaN")) && !bytes.Contains(b, []byte("Infinity")) {
		return b
	}
	var out []byte
	in, esc := false, false
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case in:
			in = ch != '"' || esc
			esc = !esc && ch == '\\'
		case ch == '"':
			in = true
		default:
			for _, lit := range []string{"NaN", "-Infinity", "Infinity"} {
				if bytes.HasPrefix(b[i:], []byte(lit)) {
					out = append(out, '"')
					out = append(out, lit...)
					ch = '"'
					i += len(lit) - 1
					break
				}
			}
		}
		out = append(out, ch)
	}
	return out
}

// scoreStream reads every line of r, checks it against the tunnel and scores it as it goes
// (diagnostics.Accumulator: memory does not grow with the number of lines). Without an
// explicit --task the first line's task field names the tunnel.
func scoreStream(r io.Reader, tf *tunnelFlags, explicit, logits bool) (scoreResult, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxScoreLine)
	var (
		t          tunnels.Tunnel
		P, C       int
		acc        *diagnostics.Accumulator
		q, p       []float64 // one sequence's rows, reused
		seq        tunnels.Sequence
		lineNo     int
		wantPos    []int
		classesRow = make([]float64, 0, 64)
	)
	for sc.Scan() {
		lineNo++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		fail := func(format string, a ...any) error {
			return fmt.Errorf("score: line %d: %s", lineNo, fmt.Sprintf(format, a...))
		}
		var ln scoreLine
		if err := json.Unmarshal(quoteNonFinite(b), &ln); err != nil {
			return scoreResult{}, fail("malformed JSON: %v", err)
		}
		if ln.Task != "" && !validTask(ln.Task) {
			return scoreResult{}, fail("unknown task %q", ln.Task)
		}
		if t == nil {
			if !explicit {
				if ln.Task == "" {
					return scoreResult{}, fail("no \"task\" field and no --task")
				}
				tf.task = ln.Task
			}
			var err error
			if t, err = tf.build(); err != nil {
				return scoreResult{}, fail("%v", err)
			}
			wantPos, P, C = t.Positions(), len(t.Positions()), t.Classes()
			if acc, err = diagnostics.NewAccumulator(P, C); err != nil {
				return scoreResult{}, fail("%v", err)
			}
		}
		if ln.Task != "" && ln.Task != t.Name() {
			return scoreResult{}, fail("task %q, but scoring %s", ln.Task, t.Name())
		}
		if ln.Tokens == nil {
			return scoreResult{}, fail("no \"tokens\"")
		}
		if len(ln.Tokens) != t.SeqLen() {
			return scoreResult{}, fail("%d tokens, want a sequence of %d", len(ln.Tokens), t.SeqLen())
		}
		if err := tunnels.PosteriorOf(t, ln.Tokens, &seq); err != nil {
			return scoreResult{}, fail("not a valid %s sequence: %v", t.Name(), err)
		}
		if ln.Positions != nil && !equalInts(ln.Positions, wantPos) {
			return scoreResult{}, fail("positions %v, want the tunnel's %v", ln.Positions, wantPos)
		}
		if len(ln.Model) != P {
			return scoreResult{}, fail("\"model\" has %d positions, want %d", len(ln.Model), P)
		}
		q, p = q[:0], p[:0]
		for j, row := range ln.Model {
			if len(row) != C {
				return scoreResult{}, fail("position %d: distribution of %d classes, want %d", j, len(row), C)
			}
			classesRow = classesRow[:0]
			for _, x := range row {
				classesRow = append(classesRow, float64(x))
			}
			if err := checkRow(classesRow, logits); err != nil {
				return scoreResult{}, fail("position %d: %v", j, err)
			}
			q = append(q, classesRow...)
			p = append(p, seq.Posterior[j]...)
		}
		if err := acc.Add(q, p); err != nil {
			return scoreResult{}, fail("%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return scoreResult{}, fmt.Errorf("score: line %d: longer than %d MiB", lineNo+1, maxScoreLine>>20)
		}
		return scoreResult{}, fmt.Errorf("score: read line %d: %w", lineNo+1, err)
	}
	switch {
	case lineNo == 0:
		return scoreResult{}, fmt.Errorf("score: empty input: no sequences to score (one JSON object a line on stdin)")
	case acc == nil || acc.Len() == 0:
		return scoreResult{}, fmt.Errorf("score: empty input: %d blank lines, no sequences to score", lineNo)
	}
	s, err := acc.Scores()
	if err != nil {
		return scoreResult{}, fmt.Errorf("score: %w", err)
	}
	return scoreResult{Task: t.Name(), Sequences: acc.Len(), Positions: wantPos, Classes: C, Scores: s}, nil
}

// checkRow checks a model row and, with logits, turns it into probabilities in place.
func checkRow(row []float64, logits bool) error {
	for c, x := range row {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("class %d: %v is not finite", c, x)
		}
		if !logits && x < 0 {
			return fmt.Errorf("class %d: negative probability %v", c, x)
		}
	}
	if logits {
		m := math.Inf(-1)
		for _, x := range row {
			m = max(m, x)
		}
		var z float64
		for c, x := range row {
			row[c] = math.Exp(x - m)
			z += row[c]
		}
		for c := range row {
			row[c] /= z
		}
		return nil
	}
	var sum float64
	for _, x := range row {
		sum += x
	}
	if math.Abs(sum-1) > normTolerance {
		return fmt.Errorf("probabilities sum to %.9g, not 1 (tolerance %g; logits need --logits)", sum, normTolerance)
	}
	return nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// scoreText prints the scores and the per-position curves as a readable table.
func scoreText(w io.Writer, r scoreResult) error {
	fmt.Fprintf(w, "%s: %d sequences, %d scored positions, %d classes\n", r.Task, r.Sequences, len(r.Positions), r.Classes)
	fmt.Fprintf(w, "bit error (a) per position  %.6f bits\n", r.BitErrorPosition)
	fmt.Fprintf(w, "bit error (b) per sample    %.6f bits\n", r.BitErrorSample)
	fmt.Fprintf(w, "KL(p*||q)                   %.6f bits\n", r.KLBits)
	fmt.Fprintf(w, "TVD                         %.6f\n", r.TVD)
	fmt.Fprintf(w, "accuracy (MAP)              %.6f\n\n", r.Accuracy)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "index\ttoken pos\tH(q) bits\tH(p*) bits\tbit error\tKL bits\tTVD\taccuracy\t")
	pc := r.PerPosition
	for j, pos := range r.Positions {
		fmt.Fprintf(tw, "%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t%.4f\t\n", j, pos, pc.ModelEntropy[j], pc.BayesEntropy[j],
			pc.BitError[j], pc.KLBits[j], pc.TVD[j], pc.Accuracy[j])
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("score: write: %w", err)
	}
	return nil
}
