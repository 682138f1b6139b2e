// Package bpe is the byte-level BPE tokenizer of a Hugging Face tokenizer.json, the kind
// GPT-NeoX (Pythia), Llama-3, Phi-2 and Mistral ship: added tokens, never split, matched in
// Hugging Face's two passes (those that are not normalized, the special ones, in the raw text
// first; then the normalized ones, their contents normalized too, in each normalized stretch
// between), the normalizers those files use (NFC/NFD/NFKC/NFKD, Prepend, Replace,
// Sequence), the pre-tokenizers (ByteLevel with GPT-2's built-in regex, Split with a
// file's regex, Metaspace, Sequence), the BPE model with its merges applied by rank
// (ignore_merges and byte_fallback honoured) and the TemplateProcessing post-processor
// (Llama-3's <|begin_of_text|>).
//
// NFC and NFKC are golang.org/x/text's, mended where its composition is wrong (a rune past
// the BMP composed as the BMP pair its low 16 bits alias, U+10041 U+0301 as 'Á'; a mark not
// blocked by a starter that combines backward): a result that is not canonically equivalent
// to the text is composed again from x/text's decomposition by UAX #15's algorithm (composed).
//
// Unicode classes are Go's tables (Unicode 15.0.0): a letter assigned since is no \p{L} here,
// where Hugging Face's newer tables make it one (TestUnicodeTablesPinned pins such code points).
//
// The files' regexes are written for Oniguruma; Go's RE2 lacks the look-ahead `\s+(?!\S)`
// both GPT-2's and Llama-3's patterns end with, and its \s, \d and \w are ASCII-only.
// Translate rewrites a pattern for RE2 (the classes widened to Unicode's, the look-ahead
// replaced by a marked `\s+` whose match gives back its last character when a
// non-space follows, as the look-ahead's backtracking does) and refuses what it cannot carry
// (anchors, other look-arounds, backreferences). A tokenizer.json of another kind (WordPiece,
// Unigram) or with a component not listed is refused with its name.
//
// Every size read from the file is bounded (MaxFile, read through hf.ReadBounded; MaxVocab,
// MaxMerges, MaxAdded), and so is what each component may add to a text: a Replace's, a
// Prepend's or a Metaspace's string is at most MaxContentBytes, a tokenizer chains at most
// MaxStages normalizers and as many pre-tokenizers (Sequences counted through), a template
// adds at most MaxTemplateIDs ids — each refused at load with the field and the limit named.
// At run time the bytes the stages of one Encode write total at most MaxGrowth × the text +
// GrowthSlack, counted before they are written, so no chain of stages can make a short
// prompt take gigabytes. Pieces go through the pre-tokenizers depth first, straight on to
// the merges, and EncodeMax stops as soon as the ids pass a limit (a model's context).
//
// The work is near-linear too: added tokens are found through an index sorted by content
// (not a scan of all of them at each position; the bytes compared are budgeted), a Split regex seeks each match in a window
// that grows only while the match may go on (see splitter.each: `.*b|a` is no longer
// quadratic; the bytes handed to the engine are budgeted), merging Split behaviours slice
// the text instead of concatenating, and the merges take O(n log n) in a piece's length.
package bpe
