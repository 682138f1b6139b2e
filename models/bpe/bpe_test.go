package bpe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// llama3Pattern is Llama-3's Split regex.
const llama3Pattern = llama3Split

// spec builds a tokenizer.json: the byte-level alphabet (ids 0..255 in byte order) plus
// extra tokens, merges, and the given components.
type spec struct {
	extra         []string
	merges        []string
	added         []map[string]any
	normalizer    any
	pre           any
	post          any
	ignoreMerges  bool
	sentencePiece bool // vocabulary of <0xXX> bytes and characters instead of the byte-level alphabet
}

func (s spec) json(t testing.TB) ([]byte, map[string]int) {
	t.Helper()
	vocab := map[string]int{}
	bc := byteChars()
	for b := range 256 {
		if s.sentencePiece {
			vocab[fmt.Sprintf("<0x%02X>", b)] = b
		} else {
			vocab[string(bc[b])] = b
		}
	}
	for _, e := range s.extra {
		if _, ok := vocab[e]; !ok {
			vocab[e] = len(vocab)
		}
	}
	f := map[string]any{
		"version": "1.0", "added_tokens": s.added, "normalizer": s.normalizer,
		"pre_tokenizer": s.pre, "post_processor": s.post, "decoder": nil,
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": nil,
			"end_of_word_suffix": nil, "fuse_unk": false, "byte_fallback": s.sentencePiece, "ignore_merges": s.ignoreMerges,
			"vocab": vocab, "merges": s.merges},
	}
	if s.added == nil {
		f["added_tokens"] = []any{}
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b, vocab
}

func build(t testing.TB, s spec) (*Tokenizer, map[string]int) {
	t.Helper()
	b, vocab := s.json(t)
	tk, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return tk, vocab
}

// bl spells raw bytes in the byte-level alphabet.
func bl(s string) string {
	bc := byteChars()
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(bc[s[i]])
	}
	return b.String()
}

// chars is the byte-level tokens of s, one per byte.
func chars(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		out = append(out, bl(s[i:i+1]))
	}
	return out
}

func cat(parts ...[]string) []string { return slices.Concat(parts...) }

var neoxMerges = []string{"Ġ t", "h e", "Ġt he", "a t", "c at", "Ġ cat", "1 2", "Ġ Ġ"}

func neox(t testing.TB) (*Tokenizer, map[string]int) {
	return build(t, spec{
		extra:      []string{"Ġt", "he", "Ġthe", "at", "cat", "Ġcat", "12", "ĠĠ", "<|endoftext|>"},
		merges:     neoxMerges,
		added:      []map[string]any{{"id": 264, "content": "<|endoftext|>", "special": true, "normalized": false}},
		normalizer: map[string]any{"type": "NFC"},
		pre:        map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
		post:       map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
	})
}

func llama3(t testing.TB) (*Tokenizer, map[string]int) {
	return build(t, spec{
		extra:        []string{"Ġt", "he", "Ġthe", "at", "cat", "Ġcat", "12", "ĠĠ", "xyz"},
		merges:       neoxMerges,
		ignoreMerges: true,
		added:        []map[string]any{{"id": 300, "content": "<|begin_of_text|>", "special": true}},
		pre: map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"Regex": llama3Pattern}, "behavior": "Isolated", "invert": false},
			map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
		}},
		post: map[string]any{"type": "Sequence", "processors": []any{
			map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
			map[string]any{"type": "TemplateProcessing",
				"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<|begin_of_text|>", "type_id": 0}}, map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}}},
				"pair":           []any{},
				"special_tokens": map[string]any{"<|begin_of_text|>": map[string]any{"id": "<|begin_of_text|>", "ids": []int{300}, "tokens": []string{"<|begin_of_text|>"}}}},
		}},
	})
}

func ids(t *testing.T, vocab map[string]int, toks []string) []int {
	t.Helper()
	out := make([]int, len(toks))
	for i, s := range toks {
		id, ok := vocab[s]
		if !ok {
			t.Fatalf("token %q not in the test vocabulary", s)
		}
		out[i] = id
	}
	return out
}

func TestEncodeByConstruction(t *testing.T) {
	nx, nv := neox(t)
	ll, lv := llama3(t)
	nbsp := "\u00a0"
	for _, c := range []struct {
		name  string
		tk    *Tokenizer
		vocab map[string]int
		text  string
		want  []string
	}{
		// Merges by rank: h+e before Ġt+he; a+t, c+at, Ġ+cat in turn.
		{"merges", nx, nv, "the cat", []string{"t", "he", "Ġcat"}},
		{"merge order", nx, nv, " the", []string{"Ġthe"}},
		// GPT-2's regex: a space before a word goes with the word, the rest of a run stays
		// apart (`\s+(?!\S)`), so "Ġ Ġ" never merges across into the word's space.
		{"two spaces", nx, nv, "a  b", []string{"a", "Ġ", "Ġ", "b"}},
		{"three spaces", nx, nv, "a   b", []string{"a", "ĠĠ", "Ġ", "b"}},
		{"trailing spaces", nx, nv, "x  ", []string{"x", "ĠĠ"}},
		{"newlines then word", nx, nv, "\n\n x", cat(chars("\n"), chars("\n"), []string{"Ġ", "x"})},
		// Unicode whitespace is \s to Oniguruma: two no-break spaces split like two spaces.
		{"no-break spaces", nx, nv, "a" + nbsp + nbsp + "b", cat([]string{"a"}, chars(nbsp), chars(nbsp), []string{"b"})},
		// Digits: GPT-2 keeps a run together, Llama-3 cuts it in threes.
		{"digits gpt2", nx, nv, "1234 12", cat([]string{"12"}, chars("34"), []string{"Ġ", "12"})},
		{"digits llama3", ll, lv, "1234 12", cat([]string{"300"}, []string{"12", "3", "4", "Ġ", "12"})},
		// Contractions: Llama-3's are case-insensitive, GPT-2's are not.
		{"contraction gpt2", nx, nv, "I'M", []string{"I", "'", "M"}},
		{"contraction llama3", ll, lv, "I'M", []string{"300", "I", "'", "M"}},
		{"punctuation llama3", ll, lv, "$at", []string{"300", "$", "at"}},
		{"newline run llama3", ll, lv, "a \n\nb", cat([]string{"300", "a"}, chars(" \n\n"), []string{"b"})},
		// Special tokens are matched first and never split.
		{"special", nx, nv, "hi<|endoftext|>the", []string{"h", "i", "<|endoftext|>", "t", "he"}},
		// Bytes outside ASCII: each byte is its own character of the byte-level alphabet;
		// NFC composes e + U+0301 first; an invalid UTF-8 byte maps like any other.
		{"utf8 bytes", nx, nv, "é😀", cat(chars("é"), chars("😀"))},
		{"nfc", nx, nv, "e\u0301", chars("é")},
		{"invalid utf8", nx, nv, "a\xff", cat([]string{"a"}, chars("\xff"))},
		{"control byte", nx, nv, "\x01", chars("\x01")},
		// ignore_merges: a whole pre-token in the vocabulary is taken as is.
		{"ignore merges", ll, lv, "xyz", []string{"300", "xyz"}},
		{"no ignore merges", nx, nv, "xyz", []string{"x", "y", "z"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.tk.Encode(c.text, true)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, 0, len(c.want))
			for _, s := range c.want {
				if s == "300" {
					want = append(want, 300)
					continue
				}
				want = append(want, ids(t, c.vocab, []string{s})...)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Encode(%q) = %v %q, want %v %q", c.text, got, tokensOf(c.tk, got), want, c.want)
			}
		})
	}
}

func tokensOf(tk *Tokenizer, ids []int) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = tk.Token(id)
	}
	return out
}

func TestSentencePieceStyle(t *testing.T) {
	tk, v := build(t, spec{
		sentencePiece: true,
		extra:         []string{"▁", "h", "e", "l", "o", "w", "r", "d", "he", "ll", "hell", "hello", "▁hello", "▁w", "<s>"},
		merges:        []string{"h e", "l l", "he ll", "hell o", "▁ hello", "▁ w"},
		added:         []map[string]any{{"id": 270, "content": "<s>", "special": true}},
		normalizer: map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Prepend", "prepend": "▁"},
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": " "}, "content": "▁"},
		}},
		post: map[string]any{"type": "TemplateProcessing",
			"single":         []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>"}}, map[string]any{"Sequence": map[string]any{"id": "A"}}},
			"special_tokens": map[string]any{"<s>": map[string]any{"ids": []int{270}}}},
	})
	got, err := tk.Encode("hello world é", true)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Concat([]int{270}, ids(t, v, []string{"▁hello", "▁w", "o", "r", "l", "d", "▁", "<0xC3>", "<0xA9>"}))
	if !slices.Equal(got, want) {
		t.Errorf("got %v %q, want %v", got, tokensOf(tk, got), want)
	}
	if d := tk.Decode(got[1:]); d != " hello world é" {
		t.Errorf("Decode = %q", d)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	tk, _ := build(t, spec{
		extra:  []string{"Ġt", "he", "Ġthe"},
		merges: []string{"Ġ t", "h e", "Ġt he"},
		pre:    map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
	})
	for _, s := range []string{"the theory", "  x\n\ty  ", "é😀 naïve", "a\xffb", "", "1,234.5 — ok?"} {
		ids, err := tk.Encode(s, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.Decode(ids); got != s {
			t.Errorf("Decode(Encode(%q)) = %q", s, got)
		}
	}
}

func TestTranslate(t *testing.T) {
	for _, c := range []struct{ in, out, err string }{
		{`\s+(?!\S)|\s+`, `([` + spaceClass + `]+)|[` + spaceClass + `]+`, ""},
		{`[^\s\p{L}]`, `[^` + spaceClass + `\p{L}]`, ""},
		{`\d+`, `\p{Nd}+`, ""},
		{`[]a]`, `[]a]`, ""},
		{`(?<=a)b`, "", "look-around"},
		{`a(?=b)`, "", "look-around"},
		{`^a`, "", "anchor"},
		{`\bword`, "", `\b`},
		{`(a)\1`, "", "backreference"},
		{`[\S]`, "", "inside a class"},
		{`[abc`, "", "unterminated"},
	} {
		got, _, err := Translate(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Translate(%q): error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.out {
			t.Errorf("Translate(%q) = %q, %v; want %q", c.in, got, err, c.out)
		}
	}
	if _, ws, _ := Translate(llama3Pattern); ws != 1 {
		t.Errorf("llama3 look-ahead group %d, want 1", ws)
	}
}

func TestHostileTokenizerJSON(t *testing.T) {
	base := func() map[string]any {
		b, _ := spec{extra: []string{"ab"}, merges: []string{"a b"}}.json(t)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m
	}
	for _, c := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"wordpiece", func(m map[string]any) { m["model"].(map[string]any)["type"] = "WordPiece" }, `"WordPiece" is not supported`},
		{"merge outside vocab", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"a q9"} }, "not in the vocabulary"},
		{"merge without space", func(m map[string]any) { m["model"].(map[string]any)["merges"] = []string{"ab"} }, "not two tokens"},
		{"negative id", func(m map[string]any) { m["model"].(map[string]any)["vocab"].(map[string]any)["zz"] = -3 }, "outside"},
		{"id twice", func(m map[string]any) { m["model"].(map[string]any)["vocab"].(map[string]any)["zz"] = 1 }, "given to both"},
		{"empty vocab", func(m map[string]any) { m["model"].(map[string]any)["vocab"] = map[string]any{} }, "vocabulary of 0"},
		{"unsupported pre", func(m map[string]any) { m["pre_tokenizer"] = map[string]any{"type": "Whitespace"} }, `"Whitespace" is not supported`},
		{"look-behind", func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `(?<=a)b`}, "behavior": "Isolated"}
		}, "look-around"},
		{"unsupported normalizer", func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Lowercase"} }, `"Lowercase" is not supported`},
		{"template without ids", func(m map[string]any) {
			m["post_processor"] = map[string]any{"type": "TemplateProcessing", "single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<x>"}}, map[string]any{"Sequence": map[string]any{"id": "A"}}}}
		}, "has no ids"},
		{"dropout", func(m map[string]any) { m["model"].(map[string]any)["dropout"] = 0.1 }, "dropout"},
		{"empty added", func(m map[string]any) { m["added_tokens"] = []any{map[string]any{"id": 3, "content": ""}} }, "bytes of content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := base()
			c.edit(m)
			b, _ := json.Marshal(m)
			_, err := Parse(b)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bpe: ") {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	if _, err := Parse([]byte("not json")); err == nil {
		t.Error("not JSON: no error")
	}
}

func TestLongPieceIsFast(t *testing.T) {
	tk, _ := build(t, spec{extra: []string{"aa", "aaaa"}, merges: []string{"a a", "aa aa"},
		pre: map[string]any{"type": "ByteLevel", "use_regex": true}})
	s := strings.Repeat("a", 1<<16)
	ids, err := tk.Encode(s, false)
	if err != nil || len(ids) != 1<<14 {
		t.Fatalf("%d ids, %v", len(ids), err)
	}
}

func FuzzEncode(f *testing.F) {
	tk, _ := llama3(f)
	nx, _ := build(f, spec{extra: []string{"Ġt", "he"}, merges: []string{"Ġ t", "h e"},
		pre: map[string]any{"type": "ByteLevel", "use_regex": true}})
	for _, s := range []string{"the cat", "a  b\n\n c", "1234", "é\xff", "I'M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := tk.Encode(s, true); err != nil {
			t.Fatal(err)
		}
		ids, err := nx.Encode(s, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := nx.Decode(ids); got != s && utf8.ValidString(s) {
			t.Fatalf("round trip %q → %q", s, got)
		}
	})
}

func TestSynthesize(t *testing.T) {
	texts := []string{"the cat sat on the mat", "the dog sat on the log", "the cat and the dog"}
	for _, style := range []Style{NeoX, Llama3} {
		b, err := Synthesize(texts, 300, style)
		if err != nil {
			t.Fatal(err)
		}
		tk, err := Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		if tk.VocabSize() != 300 {
			t.Errorf("style %d: vocabulary %d, want 300", style, tk.VocabSize())
		}
		ids, err := tk.Encode(" the cat", false)
		if err != nil {
			t.Fatal(err)
		}
		// " the" (5 times) and " cat" (twice) are merged whole.
		if got := tokensOf(tk, ids); !slices.Equal(got, []string{"Ġthe", "Ġcat"}) {
			t.Errorf("style %d: %q", style, got)
		}
		withSpecial, _ := tk.Encode("x", true)
		if want := map[Style]int{NeoX: 1, Llama3: 2}[style]; len(withSpecial) != want || (style == Llama3 && withSpecial[0] != 299) {
			t.Errorf("style %d: Encode(x, special) = %v", style, withSpecial)
		}
	}
}
