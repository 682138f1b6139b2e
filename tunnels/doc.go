// Package tunnels holds the Bayesian wind tunnels: seeded sequence tasks whose exact Bayesian
// posterior is known in closed form (bijection elimination, HMM state tracking, associative
// recall), so a network's in-context predictions can be scored against the optimum in bits.
//
// Every tunnel is deterministic: sequence i of a stream is a pure function of (stream, i),
// whatever the batch it is drawn in and on every machine. Posteriors are float64. An HMM
// batch's observed symbols at its scored positions are (*HMM).ObservedSymbols.
// WriteJSON and WriteTable print a stream's sequences with their posteriors (sample.go,
// windtunnel sample); scoring an outside model's predictions against them is tunnels/score.
// The package imports no other package of the project and knows nothing of networks.
package tunnels
