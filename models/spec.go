package models

import (
	"fmt"
	"windtunnel/models/arch"

	"windtunnel/tunnels"
)

// Resolve returns the spec with the chosen baseline's sizes filled in when its Width is
// 0: matched to the transformer's parameter count on t (within 1% where the architecture
// allows). The per-position MLP keeps the transformer's width (MatchMLP), Mamba its depth
// (MatchMamba); the prefix MLP keeps its Input.
func Resolve(s arch.Spec, t tunnels.Tunnel) arch.Spec {
	target := func() int { return TransformerParams(s.Transformer, t, 0) }
	switch s.Kind {
	case arch.KindMLP:
		if s.MLP.Width == 0 {
			s.MLP = MatchMLP(target(), s.Transformer.Width, t, 0)
		}
	case arch.KindPrefixMLP:
		if s.PrefixMLP.Width == 0 {
			in := s.PrefixMLP.Input
			s.PrefixMLP = MatchPrefixMLP(target(), t, 0)
			s.PrefixMLP.Input = in
		}
	case arch.KindLSTM:
		if s.LSTM.Width == 0 {
			s.LSTM = MatchLSTM(target(), t, 0)
		}
	case arch.KindMamba:
		if s.Mamba.Width == 0 {
			s.Mamba = MatchMamba(target(), s.Transformer.Layers, t, 0)
		}
	}
	return s
}

// EffectiveSpec is Resolve with the sizes that 0 stands for filled in (the transformer's and
// the MLPs' hidden widths, Mamba's state, expansion and convolution, the prefix MLP's
// input): the sizes New builds, for display.
func EffectiveSpec(s arch.Spec, t tunnels.Tunnel) arch.Spec {
	s = Resolve(s, t)
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
	s.Mamba = s.Mamba.WithDefaults()
	return s
}

// SpecParams is the parameter count of the model New builds from s on t with the default
// maximum length (Options.MaxLen 0), without building it.
func SpecParams(s arch.Spec, t tunnels.Tunnel) int {
	s = Resolve(s, t)
	switch s.Kind {
	case arch.KindMLP:
		return MLPParams(s.MLP, t, 0)
	case arch.KindPrefixMLP:
		return PrefixMLPParams(s.PrefixMLP, t, 0)
	case arch.KindLSTM:
		return LSTMParams(s.LSTM, t, 0)
	case arch.KindMamba:
		return MambaParams(s.Mamba, t, 0)
	}
	return TransformerParams(s.Transformer, t, 0)
}

// New builds the model of s.Kind for a tunnel; a baseline with Width 0 is capacity-matched
// to the transformer first (see Resolve). An unknown kind is an error listing Kinds.
func New(s arch.Spec, t tunnels.Tunnel, o Options) (Model, error) {
	if !arch.KnownKind(s.Kind) {
		return nil, fmt.Errorf("models: unknown model %q: want %s", s.Kind, arch.KindList())
	}
	if o.Init == arch.InitTorch && !arch.TorchInit(s.Kind) {
		return nil, fmt.Errorf("models: init %s: the transformer and mlp have it, not %s", arch.InitTorch, s.Kind)
	}
	s = Resolve(s, t)
	switch s.Kind {
	case arch.KindMLP:
		return NewMLP(s.MLP, t, o)
	case arch.KindPrefixMLP:
		return NewPrefixMLP(s.PrefixMLP, t, o)
	case arch.KindLSTM:
		return NewLSTM(s.LSTM, t, o)
	case arch.KindMamba:
		return NewMamba(s.Mamba, t, o)
	}
	return NewTransformer(s.Transformer, t, o)
}
