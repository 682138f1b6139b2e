package llmsuite

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"windtunnel/diagnostics"
	"windtunnel/models/llm"
	"windtunnel/sessions"
)

// TopToken is one of the likeliest next tokens: its id, its text as displayed, its logit
// and its probability (the softmax over every logit).
type TopToken struct {
	ID    int     `json:"id"`
	Token string  `json:"token"`
	Logit float32 `json:"logit"`
	P     float64 `json:"p"`
}

// Top is the n likeliest tokens of logits, likeliest first (equal logits: the lower id
// first), each named by display; nil for n = 0.
func Top(logits []float32, n int, display func(id int) string) []TopToken {
	order := make([]int, len(logits))
	p := make([]float64, len(logits))
	for i, v := range logits {
		order[i], p[i] = i, float64(v)
	}
	diagnostics.SoftmaxInto(p, p)
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case logits[a] > logits[b]:
			return -1
		case logits[a] < logits[b]:
			return 1
		}
		return 0
	})
	var top []TopToken
	for _, id := range order[:min(n, len(order))] {
		top = append(top, TopToken{ID: id, Token: display(id), Logit: logits[id], P: p[id]})
	}
	return top
}

// Logits is a sequence run through a model (`windtunnel llm logits`): its ids, their
// tokens as displayed, every logit of the last position and the likeliest next tokens.
type Logits struct {
	IDs    []int      `json:"ids"`
	Tokens []string   `json:"tokens"`
	Logits []float32  `json:"logits"`
	Top    []TopToken `json:"top"`
}

// MarshalJSON writes the logits and the top tokens' logits and probabilities with a
// non-finite number as null (a model whose logits are NaN: encoding/json refuses NaN).
func (l Logits) MarshalJSON() ([]byte, error) {
	type topJSON struct {
		ID    int          `json:"id"`
		Token string       `json:"token"`
		Logit sessions.Num `json:"logit"`
		P     sessions.Num `json:"p"`
	}
	out := struct {
		IDs    []int          `json:"ids"`
		Tokens []string       `json:"tokens"`
		Logits []sessions.Num `json:"logits"`
		Top    []topJSON      `json:"top"`
	}{IDs: l.IDs, Tokens: l.Tokens, Logits: make([]sessions.Num, len(l.Logits))}
	for i, v := range l.Logits {
		out.Logits[i] = sessions.Num(v)
	}
	for _, t := range l.Top {
		out.Top = append(out.Top, topJSON{t.ID, t.Token, sessions.Num(t.Logit), sessions.Num(t.P)})
	}
	return json.Marshal(out)
}

// Finite reports logits that are not all finite: how many are NaN or infinite and the
// first (its token id and value); nil when every one is finite.
func (l Logits) Finite() error {
	n, first := 0, -1
	for i, v := range l.Logits {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("llmsuite: the model's logits are not finite: %d of the %d at the last position are NaN or infinite (the first: token %d, %v); its weights or its arithmetic overflow",
		n, len(l.Logits), first, l.Logits[first])
}

// NextLogits runs seq through m and returns the last position's logits with the top
// likeliest next tokens.
func NextLogits(ctx context.Context, m *llm.Model, seq []int, top int) (Logits, error) {
	res, err := m.Forward(ctx, llm.Request{Seqs: [][]int{seq}})
	if err != nil {
		return Logits{}, err
	}
	l := Logits{IDs: seq, Logits: res.Logits[0], Top: Top(res.Logits[0], top, m.Tokenizer.DisplayToken)}
	for _, id := range seq {
		l.Tokens = append(l.Tokens, m.Tokenizer.DisplayToken(id))
	}
	return l, nil
}

// Text writes the ids, the tokens (quoted, made safe to print) and one line per top token.
func (l Logits) Text(w io.Writer) error {
	toks := make([]string, len(l.Tokens))
	for i, t := range l.Tokens {
		toks[i] = strconv.Quote(sessions.SafeText(t))
	}
	fmt.Fprintf(w, "ids    %v\ntokens %s\n", l.IDs, strings.Join(toks, " "))
	for _, t := range l.Top {
		if _, err := fmt.Fprintf(w, "%8d  %-20s logit %9.4f  p %.4f\n", t.ID, strconv.Quote(sessions.SafeText(t.Token)), t.Logit, t.P); err != nil {
			return err
		}
	}
	return nil
}
