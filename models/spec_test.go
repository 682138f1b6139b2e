package models

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"windtunnel/tunnels"
)

// TestNewEveryKind builds every kind of Kinds through New: each reports its kind, and a
// baseline with Width 0 is capacity-matched to the transformer within 1%.
func TestNewEveryKind(t *testing.T) {
	bij, _ := tunnels.NewBijection(8)
	tf := TransformerConfig{Layers: 2, Heads: 2, Width: 32}
	target := TransformerParams(tf, bij, 0)
	if got := Kinds(); !slices.Equal(got, []string{KindTransformer, KindMamba, KindLSTM, KindMLP, KindPrefixMLP}) {
		t.Fatalf("Kinds() = %v", got)
	}
	if got := PaperKinds(); !slices.Equal(got, []string{"transformer", "mamba", "lstm", "mlp"}) {
		t.Fatalf("PaperKinds() = %v", got)
	}
	for _, kind := range Kinds() {
		s := Spec{Kind: kind, Transformer: tf, PrefixMLP: PrefixMLPConfig{Input: "token"}}
		m, err := New(s, bij, Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if m.Kind() != kind {
			t.Errorf("New(%s) built a %s", kind, m.Kind())
		}
		if e := math.Abs(float64(m.NumParams()-target)) / float64(target); e > 0.01 {
			t.Errorf("%s has %d parameters, %.2f%% from the transformer's %d", kind, m.NumParams(), 100*e, target)
		}
		if got := s.Params(bij); got != m.NumParams() {
			t.Errorf("%s: Spec.Params %d, built %d", kind, got, m.NumParams())
		}
	}
	// The prefix MLP keeps its input when matched; the per-position MLP keeps the
	// transformer's width; explicit sizes are used as given.
	s := Spec{Kind: KindPrefixMLP, Transformer: tf, PrefixMLP: PrefixMLPConfig{Input: "token"}}.Resolved(bij)
	if s.PrefixMLP.Input != "token" || s.PrefixMLP.Width == 0 {
		t.Errorf("resolved prefix MLP %+v", s.PrefixMLP)
	}
	if s := (Spec{Kind: KindMLP, Transformer: tf}).Resolved(bij); s.MLP.Width != tf.Width || s.MLP.Hidden != 4*tf.Width {
		t.Errorf("resolved MLP %+v, want width %d and hidden %d", s.MLP, tf.Width, 4*tf.Width)
	}
	m, err := New(Spec{Kind: KindLSTM, Transformer: tf, LSTM: LSTMConfig{Layers: 1, Width: 8}}, bij, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumParams() != LSTMParams(LSTMConfig{Layers: 1, Width: 8}, bij, 0) {
		t.Errorf("explicit LSTM has %d parameters", m.NumParams())
	}
}

func TestSpecErrors(t *testing.T) {
	bij, _ := tunnels.NewBijection(8)
	tf := TransformerConfig{Layers: 2, Heads: 2, Width: 32}
	_, err := New(Spec{Kind: "gru", Transformer: tf}, bij, Options{})
	if err == nil {
		t.Fatal("New(gru) built a model")
	}
	for _, k := range Kinds() {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("New(gru) error %q does not list %s", err, k)
		}
	}
	for _, c := range []struct {
		s     Spec
		field string
	}{
		{Spec{Kind: "gru", Transformer: tf}, "Kind"},
		{Spec{Kind: KindTransformer, Transformer: TransformerConfig{Layers: 2, Heads: 3, Width: 32}}, "Transformer.Heads"},
		{Spec{Kind: KindPrefixMLP, Transformer: tf, PrefixMLP: PrefixMLPConfig{Input: "suffix"}}, "PrefixMLP.Input"},
		{Spec{Kind: KindMLP, Transformer: tf, MLP: MLPConfig{Blocks: 65, Width: 8}}, "MLP.Blocks"},
		{Spec{Kind: KindPrefixMLP, Transformer: tf, PrefixMLP: PrefixMLPConfig{Blocks: 1, Width: -1}}, "PrefixMLP.Width"},
		{Spec{Kind: KindMamba, Transformer: tf, Mamba: MambaConfig{Layers: 0, Width: 8}}, "Mamba.Layers"},
	} {
		var fe *FieldError
		if err := c.s.Validate(); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("Validate(%+v) = %v, want a field error on %s", c.s, err, c.field)
		}
	}
	if err := (Spec{Kind: KindLSTM, Transformer: tf}).Validate(); err != nil {
		t.Errorf("a matched LSTM: %v", err)
	}
	_, err = NewTransformer(TransformerConfig{Layers: 0, Heads: 1, Width: 8}, bij, Options{})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "Transformer.Layers" || !strings.HasPrefix(err.Error(), "models: ") {
		t.Errorf("NewTransformer with 0 layers: %v", err)
	}
}
