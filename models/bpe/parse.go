package bpe

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"windtunnel/backends/untrusted"
)

// Bounds on what a tokenizer.json may hold.
const (
	// MaxFile is the largest tokenizer.json read (Llama-3's is 9 MB).
	MaxFile = 128 << 20
	// MaxVocab is the most vocabulary entries.
	MaxVocab = 1 << 22
	// MaxMerges is the most merges.
	MaxMerges = 1 << 22
	// MaxAdded is the most added tokens.
	MaxAdded = 1 << 20
	// MaxTokenBytes is the longest token string.
	MaxTokenBytes = 1024
	// MaxContentBytes is the longest string a component inserts: a Replace's pattern and
	// content, a Prepend, a Metaspace replacement (the files' own are one character).
	MaxContentBytes = 256
	// MaxStages is the most normalizers, and the most pre-tokenizers, a tokenizer chains
	// (Sequences counted through).
	MaxStages = 64
	// MaxTemplateIDs is the most ids a post-processor's template adds around a sequence.
	MaxTemplateIDs = 64
	// MaxGrowth bounds what the stages of one Encode write: the bytes its normalizers and
	// rewriting pre-tokenizers (ByteLevel, Metaspace) make total at most MaxGrowth times the
	// text's length plus GrowthSlack (a real tokenizer writes under 4×; NFKC then ByteLevel
	// 22× at worst), so no file can make a short prompt take gigabytes.
	MaxGrowth = 64
	// GrowthSlack is the bytes the stages may write beyond MaxGrowth × the text's length.
	GrowthSlack = 4096
)

// fileJSON is the part of tokenizer.json the tokenizer reads.
type fileJSON struct {
	AddedTokens   []addedJSON     `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Model         json.RawMessage `json:"model"`
}

type addedJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"` // left out: !special, as Hugging Face's AddedToken::from
	Special    bool   `json:"special"`
}

type modelJSON struct {
	Type                    string          `json:"type"`
	Vocab                   map[string]int  `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	Dropout                 *float64        `json:"dropout"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

// typed is the "type" field every component carries.
type typed struct {
	Type string `json:"type"`
}

// Load reads and parses the tokenizer.json at path: a regular file (a FIFO or device is
// refused without blocking) of at most MaxFile bytes, however it changes while read.
func Load(path string) (*Tokenizer, error) { return load(path, MaxFile) }

// load is Load with a limit other than MaxFile (for tests).
func load(path string, max int64) (*Tokenizer, error) {
	b, err := untrusted.ReadFile(path, max)
	if err != nil {
		return nil, fmt.Errorf("bpe: %w", err)
	}
	t, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return t, nil
}

// Parse builds a tokenizer from the contents of a tokenizer.json.
func Parse(b []byte) (*Tokenizer, error) {
	if len(b) > MaxFile {
		return nil, fmt.Errorf("bpe: tokenizer.json of %d bytes, over the limit of %d", len(b), MaxFile)
	}
	var f fileJSON
	if err := untrusted.Unmarshal(b, &f); err != nil { // a key twice, at any depth, refused
		return nil, fmt.Errorf("bpe: tokenizer.json: %w", err)
	}
	t := &Tokenizer{byteChar: byteChars()}
	t.charByte = charBytes(t.byteChar)
	if err := t.parseModel(f.Model); err != nil {
		return nil, err
	}
	if err := t.parseAdded(f.AddedTokens); err != nil {
		return nil, err
	}
	var err error
	if t.normalizers, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if err := t.indexAdded(); err != nil {
		return nil, err
	}
	if t.pre, err = t.parsePre(f.PreTokenizer); err != nil {
		return nil, err
	}
	if t.single, err = t.parsePost(f.PostProcessor); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Tokenizer) parseModel(raw json.RawMessage) error {
	var m modelJSON
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("bpe: tokenizer.json model: %w", err)
	}
	if m.Type != "BPE" && !(m.Type == "" && m.Vocab != nil) {
		return fmt.Errorf("bpe: tokenizer.json model type %q is not supported (want BPE)", m.Type)
	}
	if m.Dropout != nil && *m.Dropout != 0 {
		return fmt.Errorf("bpe: BPE dropout %g is not supported", *m.Dropout)
	}
	if m.ContinuingSubwordPrefix != nil && *m.ContinuingSubwordPrefix != "" {
		return fmt.Errorf("bpe: continuing_subword_prefix %q is not supported", *m.ContinuingSubwordPrefix)
	}
	if m.EndOfWordSuffix != nil && *m.EndOfWordSuffix != "" {
		return fmt.Errorf("bpe: end_of_word_suffix %q is not supported", *m.EndOfWordSuffix)
	}
	if len(m.Vocab) == 0 || len(m.Vocab) > MaxVocab {
		return fmt.Errorf("bpe: vocabulary of %d entries, want 1..%d", len(m.Vocab), MaxVocab)
	}
	t.vocab = m.Vocab
	maxID := -1
	for s, id := range m.Vocab {
		if id < 0 || id >= MaxVocab+MaxAdded {
			return fmt.Errorf("bpe: vocabulary entry %q has id %d outside [0, %d)", s, id, MaxVocab+MaxAdded)
		}
		if len(s) > MaxTokenBytes {
			return fmt.Errorf("bpe: vocabulary entry of %d bytes, over the limit of %d", len(s), MaxTokenBytes)
		}
		maxID = max(maxID, id)
		t.longest = max(t.longest, len(s))
	}
	t.tokens = make([]string, maxID+1)
	for s, id := range m.Vocab {
		if t.tokens[id] != "" {
			return fmt.Errorf("bpe: id %d given to both %q and %q", id, t.tokens[id], s)
		}
		t.tokens[id] = s
	}
	t.byteFallback = m.ByteFallback
	t.ignoreMerges = m.IgnoreMerges
	t.unk = -1
	if m.UnkToken != nil {
		id, ok := m.Vocab[*m.UnkToken]
		if !ok {
			return fmt.Errorf("bpe: unk_token %q is not in the vocabulary", *m.UnkToken)
		}
		t.unk = id
		t.longest = max(t.longest, utf8.UTFMax) // the unknown token stands for one character
	}
	return t.parseMerges(m.Merges)
}

// parseMerges reads merges as "a b" strings or [a, b] pairs.
func (t *Tokenizer) parseMerges(raw json.RawMessage) error {
	var list []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("bpe: merges: %w", err)
		}
	}
	if len(list) > MaxMerges {
		return fmt.Errorf("bpe: %d merges, over the limit of %d", len(list), MaxMerges)
	}
	t.merges = make(map[uint64]merge, len(list))
	for rank, item := range list {
		var a, b string
		var s string
		if err := json.Unmarshal(item, &s); err == nil {
			var ok bool
			a, b, ok = strings.Cut(s, " ")
			if !ok {
				return fmt.Errorf("bpe: merge %d %q is not two tokens separated by a space", rank, s)
			}
		} else {
			var pair []string
			if err := json.Unmarshal(item, &pair); err != nil || len(pair) != 2 {
				return fmt.Errorf("bpe: merge %d is neither \"a b\" nor [a, b]", rank)
			}
			a, b = pair[0], pair[1]
		}
		ia, oka := t.vocab[a]
		ib, okb := t.vocab[b]
		im, okm := t.vocab[a+b]
		if !oka || !okb || !okm {
			return fmt.Errorf("bpe: merge %d (%q, %q): a token of it is not in the vocabulary", rank, a, b)
		}
		key := pairKey(ia, ib)
		if _, dup := t.merges[key]; !dup {
			t.merges[key] = merge{rank: rank, id: im}
		}
	}
	return nil
}

func (t *Tokenizer) parseAdded(list []addedJSON) error {
	if len(list) > MaxAdded {
		return fmt.Errorf("bpe: %d added tokens, over the limit of %d", len(list), MaxAdded)
	}
	all := make([]added, 0, len(list))
	for _, a := range list {
		if a.Content == "" || len(a.Content) > MaxTokenBytes {
			return fmt.Errorf("bpe: added token %d has %d bytes of content, want 1..%d", a.ID, len(a.Content), MaxTokenBytes)
		}
		if a.ID < 0 || a.ID >= MaxVocab+MaxAdded {
			return fmt.Errorf("bpe: added token %q has id %d outside [0, %d)", a.Content, a.ID, MaxVocab+MaxAdded)
		}
		for a.ID >= len(t.tokens) {
			t.tokens = append(t.tokens, "")
		}
		if t.tokens[a.ID] != "" && t.tokens[a.ID] != a.Content {
			return fmt.Errorf("bpe: id %d given to both %q and %q", a.ID, t.tokens[a.ID], a.Content)
		}
		t.tokens[a.ID] = a.Content
		normalized := !a.Special
		if a.Normalized != nil {
			normalized = *a.Normalized
		}
		all = append(all, added{id: a.ID, content: a.Content, singleWord: a.SingleWord, lstrip: a.LStrip, rstrip: a.RStrip,
			normalized: normalized, special: a.Special})
	}
	t.added = newAddedIndex(all)
	return nil
}

// maxAddedWrites bounds the bytes the normalizers may write while normalizing the contents
// of the normalized added tokens, all of them together.
const maxAddedWrites = 2 * MaxFile

// indexAdded builds the indices of Encode's two passes over added tokens: those that are not
// normalized, matched in the raw text, and the normalized ones with their contents run
// through the normalizers as a text is (a content they empty is never matched); what the
// normalizers write for them all is bounded as one text of their contents' length is, and by
// maxAddedWrites.
func (t *Tokenizer) indexAdded() error {
	var raw, normed []added
	total := 0
	for _, a := range t.added.added {
		if a.normalized {
			total += len(a.content)
		}
	}
	e := encoder{t: t, limit: min(MaxGrowth*total+GrowthSlack, maxAddedWrites)}
	for _, a := range t.added.added {
		if !a.normalized {
			raw = append(raw, a)
			continue
		}
		c, err := e.normalize(a.content)
		if err != nil {
			return fmt.Errorf("bpe: normalized added tokens: %w", err)
		}
		if c != "" {
			a.content = c
			normed = append(normed, a)
		}
	}
	t.addedRaw, t.addedNorm = newAddedIndex(raw), newAddedIndex(normed)
	return nil
}
