package arch

import (
	"fmt"
	"slices"
	"strings"
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

// The parameter initialisations a model can be built with.
const (
	// InitNormal draws every weight matrix and embedding from N(0, 0.02²), biases 0, gains 1.
	InitNormal = "normal"
	// InitTorch is PyTorch's default initialisation, as the authors' models use it: embeddings
	// N(0, 1) (nn.Embedding), weight matrices and biases U(−1/√fan_in, 1/√fan_in)
	// (nn.Linear's Kaiming-uniform with a = √5), gains 1.
	InitTorch = "torch"
)

// The forms of GELU a transformer or MLP can be built with.
const (
	// GELUTanh is the tanh approximation ½u(1 + tanh(√(2/π)(u + 0.044715u³))), the bench's
	// default ("" stands for it).
	GELUTanh = "tanh"
	// GELUErf is the exact GELU u·Φ(u) = ½u(1 + erf(u/√2)), PyTorch's F.gelu default and the
	// authors' models'.
	GELUErf = "erf"
)

// HasGELU reports whether a model kind has a GELU whose form a configuration chooses: the
// transformer and the two MLPs (the recurrent baselines have none).
func HasGELU(kind string) bool {
	return kind == KindTransformer || kind == KindMLP || kind == KindPrefixMLP
}

// TorchInit reports whether a model kind can be built with InitTorch: the transformer and
// the per-position MLP, the authors' two PyTorch models (the others keep their own).
func TorchInit(kind string) bool { return kind == KindTransformer || kind == KindMLP }

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
