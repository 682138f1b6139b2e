package models

import (
	"fmt"
	"slices"
	"strings"

	"windtunnel/tunnels"
)

// The model kinds New builds, as Model.Kind spells them.
const (
	KindTransformer = "transformer"
	KindMamba       = "mamba"
	KindLSTM        = "lstm"
	// KindMLP is Paper I's MLP baseline: per position, no mixing across positions (NewMLP).
	KindMLP = "mlp"
	// KindPrefixMLP is the flattened one-hot prefix MLP, a named ablation: it sees the whole
	// context (NewPrefixMLP).
	KindPrefixMLP = "mlp-prefix"
)

// Kinds lists the model kinds New builds: the rows of Paper I's architecture table in its
// order (PaperKinds), then the prefix-MLP ablation.
func Kinds() []string {
	return append(PaperKinds(), KindPrefixMLP)
}

// PaperKinds lists the rows of Paper I's architecture table, in its order (the primitives
// each passes, most first: Transformer 3/3, Mamba 2/3, LSTM 1/3, MLP 0/3): the transformer,
// then its capacity-matched baselines. It is the default model set of a comparison.
func PaperKinds() []string {
	return []string{KindTransformer, KindMamba, KindLSTM, KindMLP}
}

// KnownKind reports whether New builds kind.
func KnownKind(kind string) bool { return slices.Contains(Kinds(), kind) }

// KindList names the kinds for a message: "transformer, mamba, lstm, mlp or mlp-prefix".
func KindList() string {
	k := Kinds()
	return strings.Join(k[:len(k)-1], ", ") + " or " + k[len(k)-1]
}

// Spec is what New needs to build a model: its kind and the sizes of every architecture.
// The transformer's sizes are always used: a baseline whose Width is 0 is capacity-matched
// to the transformer's parameter count (MatchMLP, MatchPrefixMLP, MatchLSTM, MatchMamba).
type Spec struct {
	// Kind is one of Kinds.
	Kind        string
	Transformer TransformerConfig
	MLP         MLPConfig
	PrefixMLP   PrefixMLPConfig
	LSTM        LSTMConfig
	Mamba       MambaConfig
}

// Validate reports the first bad field as a *FieldError whose Field is the path in Spec
// (e.g. "Transformer.Heads"): an unknown kind, transformer sizes out of range, a prefix-MLP
// input other than prefix or token (whatever the kind), or out-of-range sizes of the chosen
// baseline when they are given (Width ≠ 0).
func (s Spec) Validate() error {
	if !KnownKind(s.Kind) {
		return &FieldError{Field: "Kind", Value: s.Kind, Reason: "want " + KindList()}
	}
	if err := s.Transformer.Validate(); err != nil {
		return err
	}
	if in := s.PrefixMLP.Input; in != "" && in != "prefix" && in != "token" {
		return &FieldError{Field: "PrefixMLP.Input", Value: in, Reason: "want prefix or token"}
	}
	switch {
	case s.Kind == KindMLP && s.MLP.Width != 0:
		return s.MLP.Validate()
	case s.Kind == KindPrefixMLP && s.PrefixMLP.Width != 0:
		return s.PrefixMLP.Validate()
	case s.Kind == KindLSTM && s.LSTM.Width != 0:
		return s.LSTM.Validate()
	case s.Kind == KindMamba && s.Mamba.Width != 0:
		return s.Mamba.Validate()
	}
	return nil
}

// Resolved returns the spec with the chosen baseline's sizes filled in when its Width is
// 0: matched to the transformer's parameter count on t (within 1% where the architecture
// allows). The per-position MLP keeps the transformer's width (MatchMLP); the prefix MLP
// keeps its Input.
func (s Spec) Resolved(t tunnels.Tunnel) Spec {
	target := func() int { return TransformerParams(s.Transformer, t, 0) }
	switch s.Kind {
	case KindMLP:
		if s.MLP.Width == 0 {
			s.MLP = MatchMLP(target(), s.Transformer.Width, t, 0)
		}
	case KindPrefixMLP:
		if s.PrefixMLP.Width == 0 {
			in := s.PrefixMLP.Input
			s.PrefixMLP = MatchPrefixMLP(target(), t, 0)
			s.PrefixMLP.Input = in
		}
	case KindLSTM:
		if s.LSTM.Width == 0 {
			s.LSTM = MatchLSTM(target(), t, 0)
		}
	case KindMamba:
		if s.Mamba.Width == 0 {
			s.Mamba = MatchMamba(target(), t, 0)
		}
	}
	return s
}

// Effective is Resolved with the sizes that 0 stands for filled in (the transformer's and
// the MLPs' hidden widths, Mamba's state, expansion and convolution, the prefix MLP's
// input): the sizes New builds, for display.
func (s Spec) Effective(t tunnels.Tunnel) Spec {
	s = s.Resolved(t)
	if s.Transformer.MLP == 0 {
		s.Transformer.MLP = 4 * s.Transformer.Width
	}
	if s.MLP.Hidden == 0 {
		s.MLP.Hidden = 4 * s.MLP.Width
	}
	if s.PrefixMLP.Hidden == 0 {
		s.PrefixMLP.Hidden = 2 * s.PrefixMLP.Width
	}
	if s.PrefixMLP.Input == "" {
		s.PrefixMLP.Input = "prefix"
	}
	s.Mamba = s.Mamba.withDefaults()
	return s
}

// Params is the parameter count of the model New builds from s on t with the default
// maximum length (Options.MaxLen 0), without building it.
func (s Spec) Params(t tunnels.Tunnel) int {
	s = s.Resolved(t)
	switch s.Kind {
	case KindMLP:
		return MLPParams(s.MLP, t, 0)
	case KindPrefixMLP:
		return PrefixMLPParams(s.PrefixMLP, t, 0)
	case KindLSTM:
		return LSTMParams(s.LSTM, t, 0)
	case KindMamba:
		return MambaParams(s.Mamba, t, 0)
	}
	return TransformerParams(s.Transformer, t, 0)
}

// New builds the model of s.Kind for a tunnel; a baseline with Width 0 is capacity-matched
// to the transformer first (see Resolved). An unknown kind is an error listing Kinds.
func New(s Spec, t tunnels.Tunnel, o Options) (Model, error) {
	if !KnownKind(s.Kind) {
		return nil, fmt.Errorf("models: unknown model %q: want %s", s.Kind, KindList())
	}
	s = s.Resolved(t)
	switch s.Kind {
	case KindMLP:
		return NewMLP(s.MLP, t, o)
	case KindPrefixMLP:
		return NewPrefixMLP(s.PrefixMLP, t, o)
	case KindLSTM:
		return NewLSTM(s.LSTM, t, o)
	case KindMamba:
		return NewMamba(s.Mamba, t, o)
	}
	return NewTransformer(s.Transformer, t, o)
}

// FieldError is a configuration field out of range. Field is the Go field path from the
// configuration being validated ("Transformer.Heads" in a Spec, "Steps" in lab's Config),
// Value the offending value and Reason what is wanted ("want 1..64"). Callers with another
// spelling of the field (a command-line flag) map Field themselves.
type FieldError struct {
	Field  string
	Value  any
	Reason string
}

// Error reads e.g. `Transformer.Heads 3: want a divisor of Transformer.Width (32)`.
func (e *FieldError) Error() string {
	v := fmt.Sprint(e.Value)
	if s, ok := e.Value.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%s %s: %s", e.Field, v, e.Reason)
}

// fieldErr is the FieldError for field with value v and a wanted range.
func fieldErr(field string, v any, reason string) error {
	return &FieldError{Field: field, Value: v, Reason: reason}
}
