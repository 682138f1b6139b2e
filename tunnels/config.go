package tunnels

import (
	"fmt"
	"strings"
)

// Config holds every tunnel size; zero fields take the defaults.
type Config struct {
	// V is the number of bijection symbols, 3..64 (default 20).
	V int `json:"v"`
	// States, Symbols and K are the HMM's hidden states S (2..20, default 5), observed
	// symbols O (2..20, default 5) and observations per sequence (1..512, default 20).
	States  int `json:"states"`
	Symbols int `json:"symbols"`
	K       int `json:"k"`
	// Pairs, Keys, Values, Fillers and Queries are the recall sizes N (default 64), Kv
	// (default 256), Vv (default 256), F (0..1024, default 32) and M (default 3). A zero
	// Fillers takes the default like every field; NewRecall builds a recall with no fillers.
	Pairs   int `json:"pairs"`
	Keys    int `json:"keys"`
	Values  int `json:"values"`
	Fillers int `json:"fillers"`
	Queries int `json:"queries"`
	// Layout is recall's pair layout: "store" (`STORE k SEP v`, the default; "" reads as it)
	// or "kv" (`k v`).
	Layout string `json:"layout,omitempty"`
}

// Default sizes: the paper's.
const (
	DefaultV       = 20
	DefaultStates  = 5
	DefaultSymbols = 5
	DefaultK       = 20
	DefaultPairs   = 64
	DefaultKeys    = 256
	DefaultValues  = 256
	DefaultFillers = 32
	DefaultQueries = 3
)

// Size limits of the tunnels.
const (
	MinV, MaxV             = 3, 64
	MinStates, MaxStates   = 2, 20
	MinSymbols, MaxSymbols = 2, 20
	MinK, MaxK             = 1, 512
	MaxKeys, MaxValues     = 4096, 4096
	MaxFillers             = 1024
)

// DefaultConfig returns the paper's sizes for every tunnel.
func DefaultConfig() Config {
	return Config{}.WithDefaults()
}

// WithDefaults returns c with every zero field replaced by its default.
func (c Config) WithDefaults() Config {
	def := func(x *int, d int) {
		if *x == 0 {
			*x = d
		}
	}
	def(&c.V, DefaultV)
	def(&c.States, DefaultStates)
	def(&c.Symbols, DefaultSymbols)
	def(&c.K, DefaultK)
	def(&c.Pairs, DefaultPairs)
	def(&c.Keys, DefaultKeys)
	def(&c.Values, DefaultValues)
	def(&c.Fillers, DefaultFillers)
	def(&c.Queries, DefaultQueries)
	return c
}

// ParamError says which parameter is out of range.
type ParamError struct {
	// Task is the tunnel: "bijection", "hmm" or "recall".
	Task string
	// Param is the parameter's flag name: v, states, symbols, k, pairs, keys, values,
	// fillers or queries.
	Param string
	// Value is the rejected value; Min and Max bound the valid range (inclusive).
	Value, Min, Max int
	// Why optionally explains a range that depends on another parameter.
	Why string
}

// Error reports the task, parameter, value and valid range.
func (e *ParamError) Error() string {
	msg := fmt.Sprintf("tunnels: %s %s=%d out of range %d..%d", e.Task, e.Param, e.Value, e.Min, e.Max)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	return msg
}

// checkRange returns a *ParamError when v is outside min..max.
func checkRange(task, param string, v, min, max int, why string) error {
	if v < min || v > max {
		return &ParamError{Task: task, Param: param, Value: v, Min: min, Max: max, Why: why}
	}
	return nil
}

// Names lists the tunnels' task names.
func Names() []string {
	return []string{"bijection", "hmm", "recall"}
}

// New builds the named tunnel with c's sizes (zero fields take the defaults).
func New(task string, c Config) (Tunnel, error) {
	c = c.WithDefaults()
	// Each case checks err itself so a failed constructor yields a nil interface, not a
	// typed nil pointer.
	switch task {
	case "bijection":
		t, err := NewBijection(c.V)
		if err != nil {
			return nil, err
		}
		return t, nil
	case "hmm":
		t, err := NewHMM(c.States, c.Symbols, c.K)
		if err != nil {
			return nil, err
		}
		return t, nil
	case "recall":
		t, err := NewRecallLayout(c.Pairs, c.Keys, c.Values, c.Fillers, c.Queries, c.Layout)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	return nil, fmt.Errorf("tunnels: unknown task %q: want one of %s", task, strings.Join(Names(), ", "))
}
