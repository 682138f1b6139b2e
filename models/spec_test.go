package models

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"windtunnel/models/arch"

	"windtunnel/tunnels"
)

// TestNewEveryKind builds every kind of Kinds through New: each reports its kind, and a
// baseline with Width 0 is capacity-matched to the transformer within 1%.
func TestNewEveryKind(t *testing.T) {
	bij, _ := tunnels.NewBijection(8)
	tf := arch.TransformerConfig{Layers: 2, Heads: 2, Width: 32}
	target := TransformerParams(tf, bij, 0)
	if got := arch.Kinds(); !slices.Equal(got, []string{arch.KindTransformer, arch.KindMamba, arch.KindLSTM, arch.KindMLP, arch.KindPrefixMLP}) {
		t.Fatalf("Kinds() = %v", got)
	}
	if got := arch.PaperKinds(); !slices.Equal(got, []string{"transformer", "mamba", "lstm", "mlp"}) {
		t.Fatalf("PaperKinds() = %v", got)
	}
	for _, kind := range arch.Kinds() {
		s := arch.Spec{Kind: kind, Transformer: tf, PrefixMLP: arch.PrefixMLPConfig{Input: "token"}}
		m, err := New(s, bij, Options{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if m.Kind() != kind {
			t.Errorf("New(%s) built a %s", kind, m.Kind())
		}
		if e := math.Abs(float64(m.NumParams()-target)) / float64(target); e > 0.01 && !closestMamba(kind, target, tf.Layers, bij) {
			t.Errorf("%s has %d parameters, %.2f%% from the transformer's %d", kind, m.NumParams(), 100*e, target)
		}
		if got := SpecParams(s, bij); got != m.NumParams() {
			t.Errorf("%s: SpecParams %d, built %d", kind, got, m.NumParams())
		}
	}
	// The prefix MLP keeps its input when matched; the per-position MLP keeps the
	// transformer's width; explicit sizes are used as given.
	s := Resolve(arch.Spec{Kind: arch.KindPrefixMLP, Transformer: tf, PrefixMLP: arch.PrefixMLPConfig{Input: "token"}}, bij)
	if s.PrefixMLP.Input != "token" || s.PrefixMLP.Width == 0 {
		t.Errorf("resolved prefix MLP %+v", s.PrefixMLP)
	}
	if s := Resolve(arch.Spec{Kind: arch.KindMLP, Transformer: tf}, bij); s.MLP.Width != tf.Width || s.MLP.Hidden != 4*tf.Width {
		t.Errorf("resolved MLP %+v, want width %d and hidden %d", s.MLP, tf.Width, 4*tf.Width)
	}
	m, err := New(arch.Spec{Kind: arch.KindLSTM, Transformer: tf, LSTM: arch.LSTMConfig{Layers: 1, Width: 8}}, bij, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumParams() != LSTMParams(arch.LSTMConfig{Layers: 1, Width: 8}, bij, 0) {
		t.Errorf("explicit LSTM has %d parameters", m.NumParams())
	}
}

func TestSpecErrors(t *testing.T) {
	bij, _ := tunnels.NewBijection(8)
	tf := arch.TransformerConfig{Layers: 2, Heads: 2, Width: 32}
	_, err := New(arch.Spec{Kind: "gru", Transformer: tf}, bij, Options{})
	if err == nil {
		t.Fatal("New(gru) built a model")
	}
	for _, k := range arch.Kinds() {
		if !strings.Contains(err.Error(), k) {
			t.Errorf("New(gru) error %q does not list %s", err, k)
		}
	}
	for _, c := range []struct {
		s     arch.Spec
		field string
	}{
		{arch.Spec{Kind: "gru", Transformer: tf}, "Kind"},
		{arch.Spec{Kind: arch.KindTransformer, Transformer: arch.TransformerConfig{Layers: 2, Heads: 3, Width: 32}}, "Transformer.Heads"},
		{arch.Spec{Kind: arch.KindPrefixMLP, Transformer: tf, PrefixMLP: arch.PrefixMLPConfig{Input: "suffix"}}, "PrefixMLP.Input"},
		{arch.Spec{Kind: arch.KindMLP, Transformer: tf, MLP: arch.MLPConfig{Blocks: 65, Width: 8}}, "MLP.Blocks"},
		{arch.Spec{Kind: arch.KindPrefixMLP, Transformer: tf, PrefixMLP: arch.PrefixMLPConfig{Blocks: 1, Width: -1}}, "PrefixMLP.Width"},
		{arch.Spec{Kind: arch.KindMamba, Transformer: tf, Mamba: arch.MambaConfig{Layers: 0, Width: 8}}, "Mamba.Layers"},
	} {
		var fe *arch.FieldError
		if err := c.s.Validate(); !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("Validate(%+v) = %v, want a field error on %s", c.s, err, c.field)
		}
	}
	if err := (arch.Spec{Kind: arch.KindLSTM, Transformer: tf}).Validate(); err != nil {
		t.Errorf("a matched LSTM: %v", err)
	}
	_, err = NewTransformer(arch.TransformerConfig{Layers: 0, Heads: 1, Width: 8}, bij, Options{})
	var fe *arch.FieldError
	if !errors.As(err, &fe) || fe.Field != "Transformer.Layers" || !strings.HasPrefix(err.Error(), "models: ") {
		t.Errorf("NewTransformer with 0 layers: %v", err)
	}
}

// closestMamba reports, for kind mamba, whether MatchMamba's width is the closest to target at
// the transformer's depth (at a small size one width step is more than 1% of the parameters).
func closestMamba(kind string, target, layers int, t tunnels.Tunnel) bool {
	if kind != arch.KindMamba {
		return false
	}
	c := MatchMamba(target, layers, t, 0)
	miss := func(w int) float64 {
		d := c
		d.Width = w
		return math.Abs(float64(MambaParams(d, t, 0) - target))
	}
	return c.Layers == layers && miss(c.Width) <= miss(c.Width-1) && miss(c.Width) <= miss(c.Width+1)
}

// TestMambaTakesTheTransformersDepth: the matched Mamba has the transformer's depth (2 on the
// recall presets' 2-layer transformer, 4 on the quick bijection one, 6 at the paper's), its
// width the closest parameter count there.
func TestMambaTakesTheTransformersDepth(t *testing.T) {
	bij, _ := tunnels.NewBijection(20)
	for _, layers := range []int{2, 4, 6} {
		tf := arch.TransformerConfig{Layers: layers, Heads: 4, Width: 64}
		s := Resolve(arch.Spec{Kind: arch.KindMamba, Transformer: tf}, bij)
		if s.Mamba.Layers != layers {
			t.Errorf("a %d-layer transformer's Mamba has %d blocks", layers, s.Mamba.Layers)
		}
		target := TransformerParams(tf, bij, 0)
		if !closestMamba(arch.KindMamba, target, layers, bij) {
			t.Errorf("%d layers: width %d is not the closest match", layers, s.Mamba.Width)
		}
		t.Logf("%d layers: Mamba %+v, %d parameters against %d", layers, s.Mamba, MambaParams(s.Mamba, bij, 0), target)
	}
}
