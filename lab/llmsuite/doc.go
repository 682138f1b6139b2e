// Package llmsuite runs Paper III's five measurements on a language model loaded by
// models/llm and records them as an llmrun.Result:
//
//   - manifold: a standardised PCA (diagnostics.Standardize, ValueManifold) of the final
//     norm's output at each prompt's last position, over the mixed-domain set, each
//     single-domain set (tunnels/prompts) and the user's file, against the model's
//     next-token entropy;
//   - sula: the SULA prompts (tunnels/sula), the model's distribution over the two labels
//     against the exact posterior (diagnostics.Score: entropy error, KL, accuracy, per k),
//     and the hidden states' PCA against the posterior entropy with PC1's place by k;
//   - keys: key orthogonality per layer and key/value head from the real keys (before the
//     rotary embedding; mean keys of the most frequent tokens, the first position left
//     out) beside Gaussian vectors, and the authors' proxy (raw token embeddings);
//   - focus: the entropy of each head's attention at the last position, by layer;
//   - axis: the entropy axis (PC1 of the values at a layer, signed to rise with the model's
//     entropy) projected out of that layer's values against a random axis, resuming the
//     pass at that layer from saved residuals.
//
// Keys and focus are read with taps on the same passes. Unsupported names the measurements a
// model cannot support (checked before any pass); one that fails later leaves the others'
// results in the record Run returns with its error. Analyzer serves the interactive view
// (tui/llmview): one prompt's next-token distribution, its SULA posterior, its place on the
// entropy axis and its focusing by layer. Settings checks `windtunnel llm`'s flags before the
// model is read and Runnable against it; WriteOutputs writes a record with its figures
// (sessions/figures) and report (sessions/reports), and ParseIDs reads `llm logits --ids`.
package llmsuite
