package tunnels

import (
	"math/bits"
	"math/rand/v2"
)

// seqSeeds are the PCG seeds of sequence i of a stream: a pure function of (stream, i), so
// a sequence is the same whatever the batch it is drawn in and on every machine.
func seqSeeds(stream, i uint64) (uint64, uint64) {
	return mix64(stream), mix64(stream ^ mix64(i+1))
}

// seqRand is the math/rand/v2 generator of sequence i of a stream.
func seqRand(stream, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seqSeeds(stream, i)))
}

// rng is an allocation-free integer generator on the same PCG stream as seqRand; it is
// used where only bounded integers are needed.
type rng struct{ src rand.PCG }

// newRNG seeds the generator of sequence i of a stream.
func newRNG(stream, i uint64) rng {
	var r rng
	r.src.Seed(seqSeeds(stream, i))
	return r
}

// intN returns a uniform int in [0, n) for n > 0 (Lemire's unbiased multiply-shift).
func (r *rng) intN(n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(r.src.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), un)
		}
	}
	return int(hi)
}

// bitset marks up to 4096 small non-negative integers without allocating.
type bitset [MaxKeys / 64]uint64

// testAndSet marks x and reports whether it was already marked.
func (b *bitset) testAndSet(x int) bool {
	w, m := x>>6, uint64(1)<<(uint(x)&63)
	was := b[w]&m != 0
	b[w] |= m
	return was
}
