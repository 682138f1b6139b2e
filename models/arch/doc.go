// Package arch holds what names and sizes a network, apart from the network itself: the
// model kinds (Kinds, PaperKinds), the size structs of the transformer and its baselines
// with their range checks, and Spec, the kind with every architecture's sizes. A recorded
// configuration is made of these, so the readers of finished runs (figures, reports) use
// them without importing models and its compute dependencies. It imports nothing of the
// project; models builds networks from a Spec.
package arch
