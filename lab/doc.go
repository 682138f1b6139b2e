// Package lab is the training runtime: the trainer goroutine that draws fresh batches from
// a tunnel, steps a model with AdamW under a warm-up + cosine schedule, evaluates it on the
// fixed held-out probe set, sends Records without ever blocking, and obeys Commands
// (pause, resume, stop, head masks).
package lab
