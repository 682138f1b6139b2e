package score

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"

	"windtunnel/backends/untrusted"
	"windtunnel/diagnostics"
	"windtunnel/tunnels"
)

// MaxLine bounds one input line (one sequence with its distributions).
const MaxLine = 16 << 20

// normTolerance is how far from 1 a probability row may sum without --logits.
const normTolerance = 1e-6

// Result is the scores of every line read together.
type Result struct {
	Task      string `json:"task"`
	Sequences int    `json:"sequences"`
	Positions []int  `json:"positions"`
	Classes   int    `json:"classes"`
	diagnostics.Scores
}

// line is one input line; fields of `sample --json` and `run --predictions` not read
// here (index, targets, posterior, entropy_bits) are ignored: the posterior is recomputed.
type line struct {
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

// Stream reads JSON Lines from r, one sequence a line ({"tokens": [...], "model": [[...],
// ...]}: the model's distribution over the task's classes at each scored position, or its
// logits when logits is set; lines of `run --predictions` and `sample --json` with a "model"
// field are read as they are), checks each against the tunnel, recomputes its exact
// posterior and scores the model against it as it goes (diagnostics.Accumulator: memory does
// not grow with the number of lines). The tunnel is build(task), task the one given or,
// when "", the first line's "task" field. Every error names its line.
func Stream(r io.Reader, task string, build func(task string) (tunnels.Tunnel, error), logits bool) (Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
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
		var ln line
		if err := untrusted.Unmarshal(quoteNonFinite(b), &ln); err != nil {
			return Result{}, fail("malformed JSON: %v", err)
		}
		if ln.Task != "" && !slices.Contains(tunnels.Names(), ln.Task) {
			return Result{}, fail("unknown task %q", ln.Task)
		}
		if t == nil {
			name := task
			if name == "" {
				if ln.Task == "" {
					return Result{}, fail("no \"task\" field and no --task")
				}
				name = ln.Task
			}
			var err error
			if t, err = build(name); err != nil {
				return Result{}, fail("%v", err)
			}
			wantPos, P, C = t.Positions(), len(t.Positions()), t.Classes()
			if acc, err = diagnostics.NewAccumulator(P, C); err != nil {
				return Result{}, fail("%v", err)
			}
		}
		if ln.Task != "" && ln.Task != t.Name() {
			return Result{}, fail("task %q, but scoring %s", ln.Task, t.Name())
		}
		if ln.Tokens == nil {
			return Result{}, fail("no \"tokens\"")
		}
		if len(ln.Tokens) != t.SeqLen() {
			return Result{}, fail("%d tokens, want a sequence of %d", len(ln.Tokens), t.SeqLen())
		}
		if err := tunnels.PosteriorOf(t, ln.Tokens, &seq); err != nil {
			return Result{}, fail("not a valid %s sequence: %v", t.Name(), err)
		}
		if ln.Positions != nil && !slices.Equal(ln.Positions, wantPos) {
			return Result{}, fail("positions %v, want the tunnel's %v", ln.Positions, wantPos)
		}
		if len(ln.Model) != P {
			return Result{}, fail("\"model\" has %d positions, want %d", len(ln.Model), P)
		}
		q, p = q[:0], p[:0]
		for j, row := range ln.Model {
			if len(row) != C {
				return Result{}, fail("position %d: distribution of %d classes, want %d", j, len(row), C)
			}
			classesRow = classesRow[:0]
			for _, x := range row {
				classesRow = append(classesRow, float64(x))
			}
			if err := checkRow(classesRow, logits); err != nil {
				return Result{}, fail("position %d: %v", j, err)
			}
			q = append(q, classesRow...)
			p = append(p, seq.Posterior[j]...)
		}
		if err := acc.Add(q, p); err != nil {
			return Result{}, fail("%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Result{}, fmt.Errorf("score: line %d: longer than %d MiB", lineNo+1, MaxLine>>20)
		}
		return Result{}, fmt.Errorf("score: read line %d: %w", lineNo+1, err)
	}
	switch {
	case lineNo == 0:
		return Result{}, fmt.Errorf("score: empty input: no sequences to score (one JSON object a line on stdin)")
	case acc == nil || acc.Len() == 0:
		return Result{}, fmt.Errorf("score: empty input: %d blank lines, no sequences to score", lineNo)
	}
	s, err := acc.Scores()
	if err != nil {
		return Result{}, fmt.Errorf("score: %w", err)
	}
	return Result{Task: t.Name(), Sequences: acc.Len(), Positions: wantPos, Classes: C, Scores: s}, nil
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
		diagnostics.SoftmaxInto(row, row)
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

// Text writes the scores and the per-position curves as a readable table.
func (r Result) Text(w io.Writer) error {
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
