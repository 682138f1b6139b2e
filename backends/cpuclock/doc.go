// Package cpuclock reads the CPU time the process, or one thread, has used: the cost of work
// itself, which a loaded machine's waiting for a core does not move as it moves wall time.
// Tests bound hostile inputs' costs with it and benchmarks report it beside wall time.
package cpuclock
