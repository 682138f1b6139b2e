package sessions

import (
	"encoding/json"
	"math"
)

// recordJSON is a Record as JSON: its scalars are Num, so a diverged run's NaN loss encodes
// as null and decodes back as NaN (encoding/json refuses a NaN float64).
type recordJSON struct {
	Step      int       `json:"step"`
	WallS     Num       `json:"wall_s"`
	Loss      Num       `json:"loss"`
	LR        Num       `json:"lr"`
	GradNorm  Num       `json:"grad_norm"`
	StepsPerS Num       `json:"steps_per_s"`
	State     State     `json:"state"`
	Message   string    `json:"message,omitempty"`
	GPUShare  Num       `json:"gpu_share,omitempty"`
	Eval      *Eval     `json:"eval,omitempty"`
	Snapshot  *Snapshot `json:"snapshot,omitempty"`
}

// MarshalJSON implements json.Marshaler: non-finite scalars as null.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{Step: r.Step, WallS: Num(r.WallS), Loss: Num(r.Loss), LR: Num(r.LR),
		GradNorm: Num(r.GradNorm), StepsPerS: Num(r.StepsPerS), State: r.State, Message: r.Message,
		GPUShare: Num(r.GPUShare), Eval: r.Eval, Snapshot: r.Snapshot})
}

// UnmarshalJSON implements json.Unmarshaler: null scalars as NaN, except the GPU share,
// which is 0 (no GPU) when it is not a number.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Record{Step: j.Step, WallS: float64(j.WallS), Loss: float64(j.Loss), LR: float64(j.LR),
		GradNorm: float64(j.GradNorm), StepsPerS: float64(j.StepsPerS), State: j.State, Message: j.Message,
		GPUShare: float64(j.GPUShare), Eval: j.Eval, Snapshot: j.Snapshot}
	if math.IsNaN(r.GPUShare) {
		r.GPUShare = 0
	}
	return nil
}

// evalJSON is an Eval as JSON, its scalars and entropy curves Num (see recordJSON).
type evalJSON struct {
	BitErrorPosition Num           `json:"bit_error_position"`
	BitErrorSample   Num           `json:"bit_error_sample"`
	KLBits           Num           `json:"kl_bits"`
	TVD              Num           `json:"tvd"`
	Accuracy         Num           `json:"accuracy"`
	ModelEntropy     []Num         `json:"model_entropy_bits"`
	BayesEntropy     []Num         `json:"bayes_entropy_bits"`
	KLByPosition     []Num         `json:"kl_by_position,omitempty"`
	TVDByPosition    []Num         `json:"tvd_by_position,omitempty"`
	Ablated          []Head        `json:"ablated,omitempty"`
	Lengths          []LengthScore `json:"lengths,omitempty"`
}

// MarshalJSON implements json.Marshaler: non-finite numbers as null.
func (e Eval) MarshalJSON() ([]byte, error) {
	return json.Marshal(evalJSON{BitErrorPosition: Num(e.BitErrorPosition), BitErrorSample: Num(e.BitErrorSample),
		KLBits: Num(e.KLBits), TVD: Num(e.TVD), Accuracy: Num(e.Accuracy), ModelEntropy: toNums(e.ModelEntropy),
		BayesEntropy: toNums(e.BayesEntropy), KLByPosition: e.KLByPosition, TVDByPosition: e.TVDByPosition,
		Ablated: e.Ablated, Lengths: e.Lengths})
}

// UnmarshalJSON implements json.Unmarshaler: null numbers as NaN.
func (e *Eval) UnmarshalJSON(b []byte) error {
	var j evalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Eval{BitErrorPosition: float64(j.BitErrorPosition), BitErrorSample: float64(j.BitErrorSample),
		KLBits: float64(j.KLBits), TVD: float64(j.TVD), Accuracy: float64(j.Accuracy),
		ModelEntropy: fromNums(j.ModelEntropy), BayesEntropy: fromNums(j.BayesEntropy),
		KLByPosition: j.KLByPosition, TVDByPosition: j.TVDByPosition, Ablated: j.Ablated, Lengths: j.Lengths}
	return nil
}

func toNums(xs []float64) []Num {
	if xs == nil {
		return nil
	}
	out := make([]Num, len(xs))
	for i, x := range xs {
		out[i] = Num(x)
	}
	return out
}

func fromNums(xs []Num) []float64 {
	if xs == nil {
		return nil
	}
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
