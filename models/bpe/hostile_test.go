package bpe

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"windtunnel/backends/cpuclock"
)

// cost returns the CPU time f took (cpuclock.Thread) and how many bytes it allocated.
func cost(f func()) (time.Duration, uint64) {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	d := cpuclock.Thread(f)
	runtime.ReadMemStats(&b)
	return d, b.TotalAlloc - a.TotalAlloc
}

func replaceNorm(from, to string) map[string]any {
	return map[string]any{"type": "Replace", "pattern": map[string]any{"String": from}, "content": to}
}

func repeated(n int, v any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// TestOversizeComponentsRefused: what a component inserts, and how many components chain,
// is refused at load with the field and the limit named.
func TestOversizeComponentsRefused(t *testing.T) {
	big := strings.Repeat("x", MaxContentBytes+1)
	nfc := map[string]any{"type": "NFC"}
	split := map[string]any{"type": "Split", "pattern": map[string]any{"String": " "}, "behavior": "Isolated"}
	special := func(n int) map[string]any {
		return map[string]any{"type": "TemplateProcessing",
			"single":         append(repeated(n, map[string]any{"SpecialToken": map[string]any{"id": "<s>"}}), map[string]any{"Sequence": map[string]any{"id": "A"}}),
			"special_tokens": map[string]any{"<s>": map[string]any{"ids": []int{1}}}}
	}
	for _, c := range []struct {
		name string
		s    spec
		want string
	}{
		{"replace content", spec{normalizer: replaceNorm(" ", strings.Repeat("x", 1<<20))}, "Replace normalizer: content of 1048576 bytes, over the limit of 256"},
		{"replace pattern", spec{normalizer: replaceNorm(big, "")}, "Replace normalizer: pattern of 257 bytes, over the limit of 256"},
		{"prepend", spec{normalizer: map[string]any{"type": "Prepend", "prepend": big}}, "Prepend normalizer: prepend of 257 bytes"},
		{"metaspace", spec{pre: map[string]any{"type": "Metaspace", "replacement": big}}, "Metaspace pre-tokenizer: replacement of 257 bytes"},
		{"nested normalizers", spec{normalizer: map[string]any{"type": "Sequence", "normalizers": repeated(2,
			map[string]any{"type": "Sequence", "normalizers": repeated(33, nfc)})}}, "more than 64 normalizers"},
		{"nested pre-tokenizers", spec{pre: map[string]any{"type": "Sequence", "pretokenizers": repeated(2,
			map[string]any{"type": "Sequence", "pretokenizers": repeated(33, split)})}}, "more than 64 pre-tokenizers"},
		{"template ids", spec{post: special(65)}, "single adds more than 64 ids"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, _ := c.s.json(t)
			_, err := Parse(b)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bpe: ") {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// At the limits they load.
	at := []spec{
		{normalizer: replaceNorm(big[1:], big[1:])},
		{normalizer: map[string]any{"type": "Sequence", "normalizers": repeated(MaxStages, nfc)}},
		{post: special(MaxTemplateIDs)},
	}
	for i, s := range at {
		if b, _ := s.json(t); func() error { _, err := Parse(b); return err }() != nil {
			t.Errorf("spec %d at the limits refused", i)
		}
	}
}

// TestExpandingStagesBounded: stages that grow the text (chained or with long insertions)
// stop with an error at MaxGrowth × the text, in bounded time and memory (before: 64 chained
// Replace a→aa died out of memory on the prompt "a").
func TestExpandingStagesBounded(t *testing.T) {
	bl := map[string]any{"type": "ByteLevel", "use_regex": false}
	long := strings.Repeat("x", MaxContentBytes)
	for _, c := range []struct {
		name string
		s    spec
		text string
	}{
		{"64 Replace a→aa", spec{normalizer: map[string]any{"type": "Sequence", "normalizers": repeated(64, replaceNorm("a", "aa"))}}, "a"},
		{"64 ByteLevel", spec{pre: map[string]any{"type": "Sequence", "pretokenizers": repeated(64, bl)}}, "é"},
		{"long Replace", spec{normalizer: replaceNorm(" ", long)}, strings.Repeat(" ", 4000)},
		{"long Metaspace", spec{pre: map[string]any{"type": "Metaspace", "replacement": long}}, strings.Repeat(" ", 4000)},
		{"long Prepend per stretch", spec{normalizer: map[string]any{"type": "Prepend", "prepend": long},
			added: []map[string]any{{"id": 256, "content": "|", "normalized": false}}}, strings.Repeat("a|", 4000)},
		{"long Replace then 64 ByteLevel", spec{normalizer: replaceNorm("a", long[:64]),
			pre: map[string]any{"type": "Sequence", "pretokenizers": repeated(64, bl)}}, strings.Repeat("a", 100)},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, _ := build(t, c.s)
			var err error
			d, alloc := cost(func() { _, err = tk.Encode(c.text, false) })
			if err == nil || !strings.Contains(err.Error(), "over the limit of 64× its length") {
				t.Errorf("error %v, want the growth limit", err)
			}
			// The stages write at most the budget; the merges of what they wrote cost some
			// 70 bytes of (short-lived) memory per byte.
			budget := MaxGrowth*len(c.text) + GrowthSlack
			if d > 2*time.Second || alloc > uint64(100*budget) {
				t.Errorf("took %v of CPU and %d bytes, want < 2 s and < %d (100 × the budget)", d, alloc, 100*budget)
			}
		})
	}
	// The largest growth a real tokenizer's stages make passes: NFKC of U+FDFA (3 bytes to 33)
	// then ByteLevel (each byte to 2 characters).
	tk, _ := build(t, spec{normalizer: map[string]any{"type": "NFKC"}, pre: bl})
	if _, err := tk.Encode(strings.Repeat("\uFDFA", 1000), false); err != nil {
		t.Errorf("NFKC then ByteLevel: %v", err)
	}
}

// TestNormMaxRatio: no rune grows past its form's ratio in a Unicode normal form, and some
// rune reaches it (the bound the growth budget reserves before applying one).
func TestNormMaxRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("normalizes every rune in four forms")
	}
	for _, name := range []string{"NFC", "NFD", "NFKC", "NFKD"} {
		ns, err := parseNormalizer(json.RawMessage(fmt.Sprintf(`{"type":%q}`, name)))
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for r := rune(0); r <= 0x10ffff; r++ {
			if r >= 0xd800 && r < 0xe000 {
				continue
			}
			s := string(r)
			worst = max(worst, float64(len(ns[0].apply(s)))/float64(len(s)))
		}
		if worst != float64(ns[0].ratio) {
			t.Errorf("%s: largest growth %g, want %d", name, worst, ns[0].ratio)
		}
	}
}

// TestManyAddedTokensFast: matching added tokens does not scan all of them at every
// position (before: 100 000 of them made an 8 KiB text take 10 s).
func TestManyAddedTokensFast(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100 000 added tokens")
	}
	const n = 100_000
	added := make([]map[string]any, n)
	for i := range added {
		added[i] = map[string]any{"id": 256 + i, "content": fmt.Sprintf("<t%06d>", i)}
	}
	tk, _ := build(t, spec{added: added, pre: map[string]any{"type": "ByteLevel", "use_regex": false}})
	text := strings.Repeat("the <t000042> cat <t099999>", 300)
	var ids []int
	var err error
	d, _ := cost(func() { ids, err = tk.Encode(text, false) })
	if err != nil || len(ids) != 300*(4+1+5+1) {
		t.Fatalf("%d ids, %v", len(ids), err)
	}
	if d > time.Second {
		t.Errorf("took %v of CPU, want < 1 s", d)
	}
}

// TestAddedTokensLongPrefixes: added tokens that share long prefixes with the text without
// matching it ("a…ab" for every length, against "a…ac") stop with an error once the bytes
// compared pass 64× the text, instead of comparing a thousand bytes at every position.
func TestAddedTokensLongPrefixes(t *testing.T) {
	var added []map[string]any
	for k := range 1023 {
		added = append(added, map[string]any{"id": 256 + k, "content": strings.Repeat("a", k) + "b"})
	}
	tk, _ := build(t, spec{added: added, pre: map[string]any{"type": "ByteLevel", "use_regex": false}})
	text := strings.Repeat(strings.Repeat("a", 1023)+"c", 16)
	var err error
	d, _ := cost(func() { _, err = tk.Encode(text, false) })
	if err == nil || !strings.Contains(err.Error(), "bytes of comparison for a text of 16384 bytes") {
		t.Errorf("error %v, want the comparison limit", err)
	}
	if d > time.Second {
		t.Errorf("took %v of CPU, want < 1 s", d)
	}
	// A real file's kind (runs of spaces of every length up to 31, as Phi-2's) is far from it.
	added = added[:0]
	for k := 2; k < 32; k++ {
		added = append(added, map[string]any{"id": 256 + k, "content": strings.Repeat(" ", k)})
	}
	tk, _ = build(t, spec{added: added, pre: map[string]any{"type": "ByteLevel", "use_regex": false}})
	if ids, err := tk.Encode(strings.Repeat(" ", 1<<16)+"x", false); err != nil || len(ids) != (1<<16)/31+2 {
		t.Errorf("%d ids, %v", len(ids), err)
	}
}

// TestAddedTokensMatchScan: the index finds what a scan of every added token longest first
// finds (leftmost-longest, single_word, lstrip, rstrip, two tokens of one content).
func TestAddedTokensMatchScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", " ", "<", ">", "é"}
	word := func(n int) string {
		var b strings.Builder
		for range 1 + rng.IntN(n) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for trial := range 300 {
		var added []map[string]any
		for i := range 1 + rng.IntN(12) {
			added = append(added, map[string]any{"id": 256 + i, "content": word(4), "single_word": rng.IntN(3) == 0,
				"lstrip": rng.IntN(3) == 0, "rstrip": rng.IntN(3) == 0})
		}
		tk, _ := build(t, spec{added: added})
		text := word(40)
		got, err := tk.addedNorm.split(text) // not special: normalized, matched after the (absent) normalizers
		if err != nil {
			t.Fatal(err)
		}
		want := scanAdded(added, text)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: added %v, text %q: got %v, want %v", trial, added, text, got, want)
		}
	}
}

// scanAdded is the added-token split as it was: every added token tried at every position, longest
// first (file order within a length).
func scanAdded(list []map[string]any, text string) []segment {
	as := make([]added, len(list))
	for i, m := range list {
		as[i] = added{id: m["id"].(int), content: m["content"].(string), singleWord: m["single_word"].(bool),
			lstrip: m["lstrip"].(bool), rstrip: m["rstrip"].(bool)}
	}
	slices.SortStableFunc(as, func(a, b added) int { return len(b.content) - len(a.content) })
	at := func(i int) (added, bool) {
		for _, a := range as {
			if !strings.HasPrefix(text[i:], a.content) {
				continue
			}
			if a.singleWord {
				if i > 0 && wordChar([]rune(text[:i])[len([]rune(text[:i]))-1]) {
					continue
				}
				if j := i + len(a.content); j < len(text) && wordChar([]rune(text[j:])[0]) {
					continue
				}
			}
			return a, true
		}
		return added{}, false
	}
	var out []segment
	start := 0
	for i := 0; i < len(text); {
		a, ok := at(i)
		if !ok {
			i += len(string([]rune(text[i:])[0]))
			continue
		}
		lo, hi := i, i+len(a.content)
		for a.lstrip && lo > start && text[lo-1] == ' ' {
			lo--
		}
		for a.rstrip && hi < len(text) && text[hi] == ' ' {
			hi++
		}
		if lo > start {
			out = append(out, segment{text: text[start:lo], id: -1})
		}
		out = append(out, segment{id: a.id})
		start, i = hi, hi
	}
	if start < len(text) {
		out = append(out, segment{text: text[start:], id: -1})
	}
	return out
}

// TestSplitRegexNotQuadratic: a Split pattern whose first alternative scans to the end of the
// text costs time linear in the text: `.*b|a` matches a character at a time (before: 20 000
// bytes took 23 s), and one that needs a whole run of spaces each time is stopped with an
// error.
func TestSplitRegexNotQuadratic(t *testing.T) {
	for _, c := range []struct{ pattern, text, err string }{
		{".*b|a", strings.Repeat("a", 20_000), ""},
		{" *b| ", strings.Repeat(" ", 20_000), "bytes of matching for a piece of 20000 bytes"},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			tk, _ := build(t, spec{pre: map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": c.pattern}, "behavior": "Isolated"},
				map[string]any{"type": "ByteLevel", "use_regex": false}}}})
			var ids []int
			var err error
			d, _ := cost(func() { ids, err = tk.Encode(c.text, false) })
			if c.err == "" && (err != nil || len(ids) != len(c.text)) {
				t.Errorf("%d ids, %v", len(ids), err)
			}
			if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if d > 2*time.Second {
				t.Errorf("took %v of CPU, want < 2 s", d)
			}
		})
	}
}

// TestMergingSplitsLinear: the behaviours that merge a run of pieces cut it from the text
// instead of concatenating piece by piece (before: 50 000 pieces allocated over a gigabyte).
func TestMergingSplitsLinear(t *testing.T) {
	for _, behavior := range []string{"MergedWithPrevious", "MergedWithNext", "Contiguous"} {
		t.Run(behavior, func(t *testing.T) {
			tk, _ := build(t, spec{pre: map[string]any{"type": "Split", "pattern": map[string]any{"String": "a"},
				"behavior": behavior, "invert": true}})
			text := strings.Repeat("a", 50_000)
			var ids []int
			var err error
			d, alloc := cost(func() { ids, err = tk.Encode(text, false) })
			if err != nil || len(ids) != len(text) {
				t.Fatalf("%d ids, %v", len(ids), err)
			}
			if d > time.Second || alloc > 16<<20 {
				t.Errorf("took %v of CPU and %d bytes, want < 1 s and < 16 MiB", d, alloc)
			}
		})
	}
}
