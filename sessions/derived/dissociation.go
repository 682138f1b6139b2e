package derived

import (
	"encoding/json"
	"fmt"
	"math"

	"windtunnel/sessions"
)

// The pre-registered dissociation rule (docs/usage.md: The dissociation rule), written before the
// runs it judges and not changed after seeing them: the frame forms early and plateaus while
// calibration keeps improving.
const (
	// FormFactor: bit error (b) where the frame formed is at least this many times its final
	// value.
	FormFactor = 10
	// PlateauFactor: bit error (b) where the ratio reached its plateau is at least this many
	// times its final value.
	PlateauFactor = 2
	// PlateauBand is the plateau: within ±20 % of the final ratio.
	PlateauBand = 0.2
	// DissociationSeeds is the fewest seeds of one configuration the rule decides on; it
	// holds when it holds in a majority of them.
	DissociationSeeds = 3
)

// DissociationPoint is one snapshot of a run as the rule reads it: the J-lens frame ratio
// (the mean over positions and sites, against the final frame; or, live, against the newest)
// and bit error (b) at that step.
type DissociationPoint struct {
	Step     int
	Ratio    float64
	BitError float64
}

// Dissociation is the rule applied to one run.
type Dissociation struct {
	// Threshold is θ (FrameThreshold of the ceiling, the largest ratio the model can reach).
	Threshold float64 `json:"threshold"`
	Ceiling   float64 `json:"ceiling"`
	// FormStep is t_form, the first snapshot after which the ratio stays ≥ θ, and
	// PlateauStep t_plateau, the first after which it stays within ±PlateauBand of its final
	// value; −1 where there is none.
	FormStep    int     `json:"form_step"`
	PlateauStep int     `json:"plateau_step"`
	FinalRatio  float64 `json:"final_ratio"`
	// BitErrorForm, BitErrorPlateau and BitErrorFinal are bit error (b) there and at the last
	// snapshot (NaN where the step is −1).
	BitErrorForm    float64 `json:"bit_error_form"`
	BitErrorPlateau float64 `json:"bit_error_plateau"`
	BitErrorFinal   float64 `json:"bit_error_final"`
	// Holds: the frame formed and plateaued, bit error at t_form ≥ FormFactor × final and at
	// t_plateau ≥ PlateauFactor × final. Why says which part failed, or the two factors.
	Holds bool   `json:"holds"`
	Why   string `json:"why"`
}

// Dissociate applies the rule to a run's snapshots in step order; ceiling is the largest
// ratio the model can reach (1/null). Points with a non-finite ratio are left out.
func Dissociate(points []DissociationPoint, ceiling float64) Dissociation {
	th, _ := FrameThreshold(ceiling)
	d := Dissociation{Threshold: th, Ceiling: ceiling, FormStep: -1, PlateauStep: -1, FinalRatio: math.NaN(),
		BitErrorForm: math.NaN(), BitErrorPlateau: math.NaN(), BitErrorFinal: math.NaN()}
	var ps []DissociationPoint
	for _, p := range points {
		if !math.IsNaN(p.Ratio) && !math.IsInf(p.Ratio, 0) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		d.Why = "no snapshot with a J-lens ratio"
		return d
	}
	last := ps[len(ps)-1]
	d.FinalRatio, d.BitErrorFinal = last.Ratio, last.BitError
	form, plateau := -1, -1
	for k := len(ps) - 1; k >= 0; k-- {
		if ps[k].Ratio < th {
			break
		}
		form = k
	}
	for k := len(ps) - 1; k >= 0; k-- {
		if math.Abs(ps[k].Ratio-last.Ratio) > PlateauBand*math.Abs(last.Ratio) {
			break
		}
		plateau = k
	}
	if plateau >= 0 {
		d.PlateauStep, d.BitErrorPlateau = ps[plateau].Step, ps[plateau].BitError
	}
	if form < 0 {
		d.Why = fmt.Sprintf("the frame never formed: the ratio ends at %.2f, below θ = %.2f", last.Ratio, th)
		return d
	}
	d.FormStep, d.BitErrorForm = ps[form].Step, ps[form].BitError
	fForm, fPlateau := d.BitErrorForm/d.BitErrorFinal, d.BitErrorPlateau/d.BitErrorFinal
	d.Holds = fForm >= FormFactor && fPlateau >= PlateauFactor
	d.Why = fmt.Sprintf("formed at step %d, plateau from step %d; bit error (b) there %.3g× and %.3g× its final %.4g (want ≥ %d× and ≥ %d×)",
		d.FormStep, d.PlateauStep, fForm, fPlateau, d.BitErrorFinal, FormFactor, PlateauFactor)
	if d.PlateauStep >= 0 && d.PlateauStep < d.FormStep {
		d.Why += "; " + d.Order()
	}
	return d
}

// Order explains a t_plateau before t_form, which the two definitions allow: the plateau band
// (±PlateauBand of the final ratio) reaches below θ when the final ratio is within
// 1/(1−PlateauBand) of θ, so the ratio can enter its final band before it crosses θ for good.
// The rule reads bit error at each step on its own, so the order does not change its
// outcome. "" when t_plateau does not precede t_form.
func (d Dissociation) Order() string {
	if d.PlateauStep < 0 || d.FormStep < 0 || d.PlateauStep >= d.FormStep {
		return ""
	}
	return fmt.Sprintf("t_plateau precedes t_form: the ratio was within ±%.0f %% of its final %.2f from step %d, a band reaching down to %.2f, below θ = %.2f, and stayed ≥ θ only from step %d; the frame formed after the ratio reached its plateau, and the rule reads each step's bit error on its own",
		100*PlateauBand, d.FinalRatio, d.PlateauStep, (1-PlateauBand)*d.FinalRatio, d.Threshold, d.FormStep)
}

// DissociationVerdict is the rule over the seeds of one configuration.
type DissociationVerdict struct {
	// Seeds is the number of runs, Held those where the rule holds.
	Seeds, Held int
	// Decided: at least DissociationSeeds seeds; Holds: decided and held by a majority.
	Decided, Holds bool
}

// DissociationOver is the verdict over the seeds of one configuration.
func DissociationOver(ds []Dissociation) DissociationVerdict {
	v := DissociationVerdict{Seeds: len(ds)}
	for _, d := range ds {
		if d.Holds {
			v.Held++
		}
	}
	v.Decided = v.Seeds >= DissociationSeeds
	v.Holds = v.Decided && 2*v.Held > v.Seeds
	return v
}

// HistoryDissociation applies the rule to a frame-precision history (a snapshot's Frame):
// the mean over sites of each point's J-lens ratio against the history's newest frame, with
// bit error (b); ceiling is 1/null of the J-lens that holds the history. ok is false when no
// point has a J-lens ratio.
func HistoryDissociation(points []sessions.FramePoint, ceiling float64) (Dissociation, bool) {
	jl, any := FrameJLens(points)
	if !any {
		return Dissociation{}, false
	}
	ps := make([]DissociationPoint, len(points))
	for i, p := range points {
		ps[i] = DissociationPoint{Step: p.Step, Ratio: jl[i], BitError: p.BitErrorSample}
	}
	return Dissociate(ps, ceiling), true
}

// Dissociation applies the rule to a run's final-frame series with bit error (b) at each
// snapshot's step from bitErrorAt (NaN where unknown).
func (fr *FrameRatios) Dissociation(bitErrorAt func(step int) float64) Dissociation {
	ps := make([]DissociationPoint, len(fr.Points))
	for i, p := range fr.Points {
		ps[i] = DissociationPoint{Step: p.Step, Ratio: p.MeanFinal, BitError: bitErrorAt(p.Step)}
	}
	return Dissociate(ps, fr.Max)
}

// MarshalJSON implements json.Marshaler: NaN (a step the rule did not reach) is null.
func (d Dissociation) MarshalJSON() ([]byte, error) {
	type plain Dissociation
	return json.Marshal(struct {
		plain
		FinalRatio      sessions.Num `json:"final_ratio"`
		BitErrorForm    sessions.Num `json:"bit_error_form"`
		BitErrorPlateau sessions.Num `json:"bit_error_plateau"`
		BitErrorFinal   sessions.Num `json:"bit_error_final"`
	}{plain(d), sessions.Num(d.FinalRatio), sessions.Num(d.BitErrorForm), sessions.Num(d.BitErrorPlateau), sessions.Num(d.BitErrorFinal)})
}
