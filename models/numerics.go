package models

// The models' numeric constants, named once (the deliberate twins: models/llm's kernels,
// which take their ε from each checkpoint's config.json and the exact or tanh GELU its
// hidden_act names; the AVX2 GELU in vmath_amd64.s; the PyTorch reference's).
const (
	// normEps is every norm's ε (RMSNorm and LayerNorm): x/√(mean(x²) + ε).
	normEps = 1e-5
	// geluC and geluA are the tanh form of GELU's: ½u(1 + tanh(geluC·(u + geluA·u³))).
	geluC = 0.7978845608028654 // sqrt(2/π)
	geluA = 0.044715
)

// geluTanh is tanh(geluC·(u + geluA·u³)), the part of GELU its gradient reuses.
func geluTanh[T Float](u T) T { return tanhT(T(geluC) * (u + T(geluA)*u*u*u)) }

// geluOf is GELU(u) from t = geluTanh(u).
func geluOf[T Float](u, t T) T { return 0.5 * u * (1 + t) }

// geluGradOf is d GELU / du from t = geluTanh(u).
func geluGradOf[T Float](u, t T) T {
	return 0.5*(1+t) + 0.5*u*(1-t*t)*T(geluC)*(1+T(3*geluA)*u*u)
}
