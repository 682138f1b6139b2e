// Package llm is the forward pass of the language models Paper III measures, read from a
// Hugging Face folder (models/hf for the files, models/bpe for the tokenizer): GPT-NeoX
// (Pythia: LayerNorm with bias, the fused query_key_value laid out per head, partial rotary,
// parallel residual, exact GELU, untied embed_out), Llama (RMSNorm, grouped-query attention,
// rotary with llama3 or linear scaling, SwiGLU, tied or untied head), Mistral (Llama with a
// sliding window) and Phi-2 (one LayerNorm feeding attention and MLP in parallel, biases,
// partial rotary, tanh GELU, lm_head bias). ParseConfig reads config.json into a Config,
// bounding every size (decoded strictly: a key twice, a negative optional size or a value of
// the wrong type is refused, naming the key); Load maps the weights, checking each tensor's
// shape against it, and a pass stops with an error naming a weight file truncated under it.
//
// Forward runs a batch of token sequences: the position-wise products of all their tokens
// as one GEMM on the project's float32 back-end (gemm.Go split over the cores by default),
// attention per (sequence, head) on per-worker single-threaded products, a block of query
// rows at a time (at most 4 MiB of scores per worker: O(T), not T²), each weight matrix
// converted from float16 or bfloat16 to float32 just before its product into one scratch
// buffer (float32 weights are used in place). Batches are cut into chunks whose activations
// stay near 256 MiB. Taps see the residual stream entering each layer, the keys (before the
// rotary embedding) and values (which EditValues may change, the axis ablation), and each
// head's attention; a pass can resume at a layer from saved residuals. The result holds the
// logits at the last position (or every one) and the final norm's output there.
// ForwardMemory estimates a pass's allocations before it starts, and Forward refuses, with
// that estimate, a pass larger than Options.Available says there is room for.
//
// The forward pass runs on the CPU only. WriteRandom writes a folder of any configuration
// with random weights (the tests' tiny models, the timing folders of real shapes), and
// scripts/torch_llm_reference.py is an independent float64 implementation in plain torch that
// TestTorchParity holds it to within 1e-4.
package llm
