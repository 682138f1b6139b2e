package lab

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"windtunnel/models/arch"
	"windtunnel/sessions/runconfig"

	"windtunnel/backends/bytesize"
	"windtunnel/models"
	"windtunnel/tunnels"
)

// Memory is the estimate of the memory a run needs, in bytes, made before anything is
// allocated (New refuses a run whose Total exceeds the memory available).
type Memory struct {
	// Params is the model's parameter count.
	Params int64
	// Weights holds the parameters, their gradients and AdamW's two moments (4 copies).
	Weights int64
	// Activations is what one training step keeps for its backward pass: batch × sequence
	// length × (layers + 1) × the model's per-token width (activationFloats), or an
	// evaluation chunk's when larger, plus the output logits.
	Activations int64
	// Probe holds the probe sets' model and exact posteriors (float64) and the per-step timings.
	Probe int64
	// Total is the sum.
	Total int64
}

func (m Memory) String() string {
	return fmt.Sprintf("about %s (%d parameters: %s for weights, gradients and AdamW moments; %s activations; %s probe sets)",
		bytesize.String(m.Total), m.Params, bytesize.String(m.Weights), bytesize.String(m.Activations), bytesize.String(m.Probe))
}

// MemoryError is New's error when the run's estimate exceeds the memory available.
type MemoryError struct {
	Need      Memory
	Available int64
	// Source is the limit that leaves the least room (see AvailableMemoryFrom).
	Source string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("lab: the run needs %s but %s is available (%s): make the model, batch or probe set smaller",
		e.Need, bytesize.String(e.Available), e.Source)
}

// activationFloats is the per-token, per-layer count of values a model keeps for its
// backward pass and its layer count, for sizes already resolved (Spec.Effective). It is a
// rough upper estimate (the kernels reuse buffers across layers where they can).
func activationFloats(s arch.Spec, seqLen int64) (perToken, layers int64) {
	switch s.Kind {
	case arch.KindLSTM:
		d := int64(s.LSTM.Width)
		return 12 * d, int64(s.LSTM.Layers)
	case arch.KindMamba:
		d, e, st := int64(s.Mamba.Width), int64(s.Mamba.Expand), int64(s.Mamba.State)
		return d*e*(8+2*st) + 4*d, int64(s.Mamba.Layers)
	case arch.KindMLP:
		return 4*int64(s.MLP.Width) + 2*int64(s.MLP.Hidden), int64(max(s.MLP.Blocks, 1))
	case arch.KindPrefixMLP:
		return 4*int64(s.PrefixMLP.Width) + 2*int64(s.PrefixMLP.Hidden), int64(max(s.PrefixMLP.Blocks, 1))
	}
	tc := s.Transformer
	d, f, h := int64(tc.Width), int64(tc.MLP), int64(tc.Heads)
	// Norms, q, k, v, attention output and residuals (~10d), the MLP's hidden layer before and
	// after the GELU (2f), and each head's attention scores and weights (2·h·T).
	return 10*d + 2*f + 2*h*seqLen, int64(tc.Layers)
}

// MemoryEstimate estimates the memory a run of c needs, without building anything. It
// fails when the task or its sizes are invalid.
func MemoryEstimate(c runconfig.Config) (Memory, error) {
	tn, err := tunnels.New(c.Task, c.Tunnel)
	if err != nil {
		return Memory{}, fmt.Errorf("lab: %w", err)
	}
	long, err := longestTunnel(c, tn)
	if err != nil {
		return Memory{}, fmt.Errorf("lab: %w", err)
	}
	dt := floatBytes(c)
	s := models.EffectiveSpec(c.Spec(), long)
	var m Memory
	m.Params = int64(models.SpecParams(s, long))
	m.Weights = 4 * m.Params * dt
	// Training keeps every layer's values of a batch of the training length for the
	// backward pass, plus one layer's gradients; each evaluated length keeps the forward
	// pass of a chunk of its probe sequences (evalChunk).
	seq := int64(tn.SeqLen())
	perToken, layers := activationFloats(s, seq)
	tokens := int64(c.Batch) * seq
	train := tokens * (layers + 1) * perToken * dt
	var eval int64
	for _, tk := range evalTunnels(c, tn) {
		chunk := evalChunk(s, tk, c.ProbeSize, dt, evalBudget)
		eval += int64(chunk) * inferBytesPerSeq(s, int64(tk.SeqLen()), dt)
	}
	m.Activations = train + eval + 3*tokens*int64(max(long.Vocab(), long.Classes()))*dt
	scored := int64(len(long.Positions())) * int64(long.Classes())
	m.Probe = int64(c.ProbeSize)*scored*16*int64(1+len(c.EvalK)) + 8*int64(c.Steps)
	m.Total = m.Weights + m.Activations + m.Probe
	return m, nil
}

// GCPercent is the garbage collector's target (debug.SetGCPercent, GOGC) for a process that
// trains: the next collection when the heap has grown by a quarter, not doubled. A
// trainer's heap is mostly the compiled graphs' float buffers, which hold no pointers and
// cost a collection almost nothing to keep, so collecting four times as often costs little
// (under 1% of the CPU at the quick presets) and the peak memory is about 1.25 times what
// is in use instead of twice: at the quick hmm preset, 393 MB against 591 MB.
const GCPercent = 25

// floatBytes is the size of one value at the run's precision.
func floatBytes(c runconfig.Config) int64 {
	if c.Precision == "float64" {
		return 8
	}
	return 4
}

// evalTunnels are the tunnels of every evaluated length: tn alone, or tn at each K of an
// hmm run's EvalLengths (those it cannot draw left out: Validate refuses them).
func evalTunnels(c runconfig.Config, tn tunnels.Tunnel) []tunnels.Tunnel {
	h, ok := tn.(*tunnels.HMM)
	ks := c.EvalLengths()
	if !ok || len(ks) == 0 {
		return []tunnels.Tunnel{tn}
	}
	var out []tunnels.Tunnel
	for _, k := range ks {
		if tk, err := h.WithK(k); err == nil {
			out = append(out, tk)
		}
	}
	return out
}

// CheckMemory refuses a run whose estimate exceeds available bytes of MemAvailable (a
// *MemoryError); with available ≤ 0 (unknown) it refuses nothing.
func CheckMemory(c runconfig.Config, available int64) error {
	return CheckMemoryIn(c, available, "MemAvailable")
}

// CheckMemoryIn is CheckMemory with the limit the available bytes come from, for the error.
func CheckMemoryIn(c runconfig.Config, available int64, source string) error {
	m, err := MemoryEstimate(c)
	if err != nil {
		return err
	}
	if available > 0 && m.Total > available {
		return &MemoryError{Need: m, Available: available, Source: source}
	}
	return nil
}

// AvailableMemory is the memory a run can still use, in bytes: the least of MemAvailable
// (/proc/meminfo), the room under the memory limits of the process's cgroups (v2
// memory.max, v1 memory.limit_in_bytes, less what they use) and under RLIMIT_AS (less the
// address space in use); 0 when none can be read (not Linux, no /proc, no limit): then no
// run is refused for its size.
func AvailableMemory() int64 {
	n, _ := AvailableMemoryFrom()
	return n
}

// AvailableMemoryFrom is AvailableMemory and the limit it comes from ("MemAvailable",
// "cgroup memory.max", "cgroup memory.limit_in_bytes", "RLIMIT_AS (ulimit -v)").
func AvailableMemoryFrom() (int64, string) {
	return memSources{root: "/", rlimitAS: rlimitAS}.available()
}

// memAvailable parses the MemAvailable line of a /proc/meminfo ("MemAvailable: 123 kB").
func memAvailable(r io.Reader) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb < 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
