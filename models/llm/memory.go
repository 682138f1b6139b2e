package llm

import (
	"fmt"

	"windtunnel/backends/bytesize"
	"windtunnel/models/hf"
)

// Memory is the estimate of what one forward pass allocates, in bytes, made before it
// allocates anything (Forward refuses a pass whose Total exceeds Options.Available).
type Memory struct {
	// Tokens is the number of tokens of the request, Longest its longest sequence's.
	Tokens, Longest int
	// Activations is the largest chunk's: the residual stream, norms, projections, attention
	// output and MLP (and keys and values when a tap asks for them), and the rotary tables.
	Activations int64
	// Attention is every worker's scores for one block of query rows and the GEMM's packed
	// keys and values (O(Longest) each).
	Attention int64
	// Output is the result's logits and hidden vectors and the output head's converted block.
	Output int64
	// Scratch is the largest weight matrix converted to float32 (0 for float32 weights).
	Scratch int64
	// Total is the sum.
	Total int64
}

func (e Memory) String() string {
	return fmt.Sprintf("about %s for %d tokens (longest sequence %d): %s activations, %s attention scores, %s logits, %s weight scratch",
		bytesize.String(e.Total), e.Tokens, e.Longest, bytesize.String(e.Activations), bytesize.String(e.Attention), bytesize.String(e.Output), bytesize.String(e.Scratch))
}

// MemoryError is Forward's error when a pass's estimate exceeds the memory available.
type MemoryError struct {
	Need      Memory
	Available int64
	// Source is the limit that leaves the least room (lab.AvailableMemoryFrom's).
	Source string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("llm: the forward pass needs %s but %s is available (%s): use shorter or fewer sequences",
		e.Need, bytesize.String(e.Available), e.Source)
}

// ForwardMemory estimates what Forward allocates for req (which it does not check).
func (m *Model) ForwardMemory(req Request) Memory {
	return m.memory(req, m.plan(req))
}

// memory estimates the allocations of req cut into the chunks of plan.
func (m *Model) memory(req Request, chunks [][]int) Memory {
	c := m.Config
	q, kv := int64(c.Heads*c.HeadDim), int64(c.KVHeads*c.HeadDim)
	perToken := 4*int64(c.Hidden) + q + 2*kv + q + int64(c.Intermediate) // x, h, o; qkv; ctx; inter
	if c.Gated {
		perToken += int64(c.Intermediate)
	}
	if t := req.Taps; t != nil && (t.KV != nil || t.EditValues != nil) {
		perToken += 2 * kv
	}
	var e Memory
	for _, seqs := range chunks {
		var n, longest int64
		for _, s := range seqs {
			n += int64(len(req.Seqs[s]))
			longest = max(longest, int64(len(req.Seqs[s])))
		}
		rot := 2 * longest * int64(len(m.invFreq))
		e.Activations = max(e.Activations, 4*(n*perToken+rot))
		// Each worker's scores for a block of rows, and its GEMM's packed keys or values
		// (16 columns wide, the micro-kernel's).
		e.Attention = max(e.Attention, 4*int64(m.pool.Workers)*(int64(attnRows(int(longest)))+2*16)*longest)
		e.Tokens += int(n)
		e.Longest = max(e.Longest, int(longest))
	}
	rows := int64(len(req.Seqs))
	if req.AllLogits {
		rows = int64(e.Tokens)
	}
	block := int64(min(c.Vocab, max(1, (16<<20)/(4*c.Hidden))))
	e.Output = 4 * (rows*int64(c.Vocab) + 2*rows*int64(c.Hidden) + block*int64(c.Hidden))
	e.Scratch = m.scratchBytes()
	e.Total = e.Activations + e.Attention + e.Output + e.Scratch
	return e
}

// scratchBytes is the size of the largest layer matrix that must be converted to float32
// (model.matrix's scratch); 0 when every one is used in place.
func (m *Model) scratchBytes() int64 {
	var most int64
	for _, L := range m.layers {
		for _, t := range []*hf.Tensor{L.qkv, L.q, L.k, L.v, L.o, L.up, L.gate, L.down} {
			if t == nil {
				continue
			}
			if _, ok := t.View(); !ok {
				most = max(most, 4*int64(t.Len()))
			}
		}
	}
	return most
}
