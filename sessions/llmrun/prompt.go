package llmrun

// Candidate is one likely next token of a prompt analysed in the view (`llm view`).
type Candidate struct {
	Token string
	P     float64
}

// SULAView is a SULA-shaped prompt's label counts, exact posterior and the model's
// distribution over the two labels.
type SULAView struct {
	Labels [2]string
	N      [2]int
	Exact  [2]float64
	Model  [2]float64
}

// AxisView is a prompt's PC1 coordinate among reference prompts spanning [Min, Max], the axis
// running from LowH bits of posterior entropy (near Min) to HighH (near Max).
type AxisView struct {
	Coord, Min, Max float64
	LowH, HighH     float64
	Reference       string
}

// Analysis is one prompt's outcome: its tokens, the likeliest next tokens and the
// next-token entropy (bits), the SULA view when the prompt is SULA-shaped, its place on the
// entropy axis, and the attention entropy at its last position by layer (mean over heads)
// beside uniform attention's.
type Analysis struct {
	Prompt  string
	Tokens  []string
	Top     []Candidate
	Entropy float64
	SULA    *SULAView
	Axis    *AxisView
	Focus   []float64
	Uniform float64
}
