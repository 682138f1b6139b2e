// Package bpe is the byte-level BPE tokenizer of a Hugging Face tokenizer.json, the kind
// GPT-NeoX (Pythia), Llama-3, Phi-2 and Mistral ship: added (special) tokens matched first
// and never split, the normalizers those files use (NFC/NFD/NFKC/NFKD, Prepend, Replace,
// Sequence), the pre-tokenizers (ByteLevel with GPT-2's built-in regex, Split with a
// file's regex, Metaspace, Sequence), the BPE model with its merges applied by rank
// (ignore_merges and byte_fallback honoured) and the TemplateProcessing post-processor
// (Llama-3's <|begin_of_text|>).
//
// The files' regexes are written for Oniguruma; Go's RE2 lacks the look-ahead `\s+(?!\S)`
// both GPT-2's and Llama-3's patterns end with, and its \s, \d and \w are ASCII-only.
// Translate rewrites a pattern for RE2 (the classes widened to Unicode's, the look-ahead
// replaced by a marked `\s+` whose match gives back its last character when a
// non-space follows, as the look-ahead's backtracking does) and refuses what it cannot carry
// (anchors, other look-arounds, backreferences). A tokenizer.json of another kind (WordPiece,
// Unigram) or with a component not listed is refused with its name.
//
// Every size read from the file is bounded (MaxFile, MaxVocab, MaxMerges, MaxAdded); Encode
// works in time O(n log n) in the length of a piece, so a long prompt cannot stall it.
package bpe
