package timescales

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The authors' task: a sticky Markov chain over Symbols symbols, each step's input the
// previous symbol's mean plus standard normal noise in Dim dimensions.
const (
	Symbols  = 8
	Dim      = 20
	SelfProb = 0.3
	// Length is the number of symbols drawn per seed (Length−1 predictions).
	Length = 2000
)

// RNG streams (the second PCG word) of the bench's draws, so that the means, a seed's
// sequence and its initial weights never share a stream.
const (
	streamMeans = 0x6d65616e // "mean"
	streamChain = 0x63686e   // "chn"
	streamInit  = 0x696e6974 // "init"
	// meansSeed is the seed of the symbol means, fixed for every seed as the authors' are.
	meansSeed = 0
)

// Transition returns the chain's n×n transition matrix (row-major) as the authors build it:
// the diagonal self, every other entry 1/d with d the circular distance between the
// symbols, then each row divided by its sum (diagonal included), scaled by 1 − self, and
// self added to the diagonal. The diagonal therefore ends above self (0.3498 at n = 8,
// self 0.3): the first scaling shrinks it too.
func Transition(n int, self float64) []float64 {
	p := make([]float64, n*n)
	for i := range n {
		row := p[i*n : (i+1)*n]
		sum := 0.0
		for j := range row {
			if i == j {
				row[j] = self
			} else {
				d := abs(i - j)
				row[j] = 1 / float64(min(d, n-d))
			}
			sum += row[j]
		}
		for j := range row {
			row[j] = row[j] / sum * (1 - self)
		}
		row[i] += self
	}
	return p
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ConditionalEntropy is H(Y_t | Y_{t−1}) in nats as the authors compute it: the mean over
// rows of each row's entropy (the chain is symmetric under rotation, so its stationary
// distribution is uniform and this is the entropy rate, the loss a perfect predictor
// reaches).
func ConditionalEntropy(p []float64, n int) float64 {
	h := 0.0
	for _, x := range p {
		if x > 0 {
			h -= x * math.Log(x)
		}
	}
	return h / float64(n)
}

// Data is one seed's training set: inputs X (N×Dim, row-major) and the symbols Y to predict.
type Data struct {
	X []float64
	Y []int
	N int
}

// Means returns the Symbols×Dim symbol means, standard normal, from their own fixed seed.
func Means() []float64 {
	rng := rand.New(rand.NewPCG(meansSeed, streamMeans))
	mu := make([]float64, Symbols*Dim)
	for i := range mu {
		mu[i] = rng.NormFloat64()
	}
	return mu
}

// Draw returns seed's data: a chain of length symbols under p started uniformly, and for
// t ≥ 1 the input x_t = μ_{y_{t−1}} + ε_t (ε standard normal) with target y_t. The draws are
// the bench's own (PCG), from the same distributions as the authors' (PyTorch's RNG).
func Draw(seed uint64, length int, p, mu []float64) (Data, error) {
	if length < 2 {
		return Data{}, fmt.Errorf("timescales: sequence length %d, want ≥ 2", length)
	}
	rng := rand.New(rand.NewPCG(seed, streamChain))
	seq := make([]int, length)
	seq[0] = rng.IntN(Symbols)
	for t := 1; t < length; t++ {
		seq[t] = sample(rng, p[seq[t-1]*Symbols:(seq[t-1]+1)*Symbols])
	}
	n := length - 1
	d := Data{X: make([]float64, n*Dim), Y: seq[1:], N: n}
	for t := range n {
		row, m := d.X[t*Dim:(t+1)*Dim], mu[seq[t]*Dim:(seq[t]+1)*Dim]
		for j := range row {
			row[j] = m[j] + rng.NormFloat64()
		}
	}
	return d, nil
}

// sample draws an index from the distribution probs.
func sample(rng *rand.Rand, probs []float64) int {
	u := rng.Float64()
	c := 0.0
	for i, q := range probs {
		c += q
		if u < c {
			return i
		}
	}
	return len(probs) - 1
}
