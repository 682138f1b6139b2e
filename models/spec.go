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
	KindMLP         = "mlp"
)

// Kinds lists the model kinds New builds, in the order of Paper I's architecture table
// (the primitives each passes, most first): the transformer, then its capacity-matched
// baselines.
func Kinds() []string {
	return []string{KindTransformer, KindMamba, KindLSTM, KindMLP}
}

// KnownKind reports whether New builds kind.
func KnownKind(kind string) bool { return slices.Contains(Kinds(), kind) }

// KindList names the kinds for a message: "transformer, mamba, lstm or mlp".
func KindList() string {
	k := Kinds()
	return strings.Join(k[:len(k)-1], ", ") + " or " + k[len(k)-1]
}

// Spec is what New needs to build a model: its kind and the sizes of every architecture.
// The transformer's sizes are always used: a baseline whose Width is 0 is capacity-matched
// to the transformer's parameter count (MatchMLP, MatchLSTM, MatchMamba).
type Spec struct {
	// Kind is one of Kinds.
	Kind        string
	Transformer TransformerConfig
	MLP         MLPConfig
	LSTM        LSTMConfig
	Mamba       MambaConfig
}

// Validate reports the first bad field as a *FieldError whose Field is the path in Spec
// (e.g. "Transformer.Heads"): an unknown kind, transformer sizes out of range, an MLP input
// other than prefix or token, or out-of-range sizes of the chosen baseline when they are
// given (Width ≠ 0).
func (s Spec) Validate() error {
	if !KnownKind(s.Kind) {
		return &FieldError{Field: "Kind", Value: s.Kind, Reason: "want " + KindList()}
	}
	if err := s.Transformer.Validate(); err != nil {
		return err
	}
	if in := s.MLP.Input; in != "" && in != "prefix" && in != "token" {
		return &FieldError{Field: "MLP.Input", Value: in, Reason: "want prefix or token"}
	}
	switch {
	case s.Kind == KindMLP && s.MLP.Width != 0:
		return s.MLP.Validate()
	case s.Kind == KindLSTM && s.LSTM.Width != 0:
		return s.LSTM.Validate()
	case s.Kind == KindMamba && s.Mamba.Width != 0:
		return s.Mamba.Validate()
	}
	return nil
}

// Resolved returns the spec with the chosen baseline's sizes filled in when its Width is
// 0: matched to the transformer's parameter count on t within 1% where the architecture
// allows (MLP Input is kept).
func (s Spec) Resolved(t tunnels.Tunnel) Spec {
	target := func() int { return TransformerParams(s.Transformer, t, 0) }
	switch s.Kind {
	case KindMLP:
		if s.MLP.Width == 0 {
			in := s.MLP.Input
			s.MLP = MatchMLP(target(), t, 0)
			s.MLP.Input = in
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
