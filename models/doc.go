// Package models holds the networks trained in the wind tunnels (transformer, MLP baseline)
// as gorgonia expression graphs. The hot paths are custom gorgonia ops with hand-written
// forward and backward passes over BLAS that write into memory they own, so a steady-state
// training step allocates almost nothing.
//
// Parameters live once per model and are shared by every compiled graph (one per batch
// size). Models know nothing of the UI; they import at most the tunnels package.
package models
