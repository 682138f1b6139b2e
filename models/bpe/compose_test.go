package bpe

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestComposedForms (issue 53): NFC and NFKC leave a pair alone that x/text composes as the
// BMP pair its low 16 bits alias (U+10041 U+0301 became 'Á', U+1099 U+110BA the Kaithi letter
// U+1109A), and still compose the real pairs around it; and a mark blocked by a starter that
// combines backward (U+0B57) stays apart (x/text made e U+0327 ȩ across it).
func TestComposedForms(t *testing.T) {
	nfc, nfkc := composed{norm.NFC, norm.NFD}, composed{norm.NFKC, norm.NFKD}
	for _, c := range []struct {
		name     string
		form     composed
		in, want string
	}{
		{"supplementary starter, BMP mark", nfc, "\U00010041\u0301", "\U00010041\u0301"},
		{"plane 2 starter", nfc, "\U00020041\u0301", "\U00020041\u0301"},
		{"BMP starter, supplementary mark", nfc, "\u1099\U000110BA", "\u1099\U000110BA"},
		{"plane 2 starter, supplementary mark", nfc, "\U00021099\U000110BA", "\U00021099\U000110BA"},
		{"real supplementary pair", nfc, "\U00011099\U000110BA", "\U0001109A"},
		{"real pair, a mark reordered after it", nfc, "\U00011099\u0323\U000110BA", "\U0001109A\u0323"},
		{"BMP pair beside the alias", nfc, "e\u0301\U00010041\u0301\U0001F600e\u0301", "é\U00010041\u0301\U0001F600é"},
		{"invalid byte kept", nfc, "\xff\U00010041\u0301e\u0301\xfe", "\xff\U00010041\u0301é\xfe"},
		{"BMP only", nfc, "A\u0301", "Á"},
		{"blocked by a backward-combining starter", nfc, "e\u05b0\u0b57\u0327", "e\u05b0\u0b57\u0327"},
		{"the same starter composing", nfc, "\u0b47\u0b57", "\u0b4c"},
		{"NFKC alias", nfkc, "\U00010041\u0301", "\U00010041\u0301"},
		{"NFKC compatibility beside it", nfkc, "\ufb01\U00010041\u0301", "fi\U00010041\u0301"},
	} {
		if got := c.form.String(c.in); got != c.want {
			t.Errorf("%s: %+q → %+q, want %+q (x/text: %+q)", c.name, c.in, got, c.want, c.form.form.String(c.in))
		}
	}
	// The same through a tokenizer with GPT-NeoX's NFC normalizer: the bytes as they came.
	nx, nv := neox(t)
	text := "\U00010041\u0301"
	got, err := nx.Encode(text, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := ids(t, nv, chars(text)); !slices.Equal(got, want) {
		t.Errorf("Encode(%+q) = %q, want %q", text, tokensOf(nx, got), chars(text))
	}
}

// TestSupplementaryPairs: supplementaryPairs holds every canonical composition of x/text's
// tables with a rune past the BMP, found by decomposing every rune there.
func TestSupplementaryPairs(t *testing.T) {
	found := map[[2]rune]rune{}
	for r := rune(0x10000); r <= 0x10FFFF; r++ {
		d := []rune(norm.NFD.String(string(r)))
		if len(d) == 2 && norm.NFC.String(string(d)) == string(r) {
			found[[2]rune{d[0], d[1]}] = r
		}
	}
	for pair, r := range found {
		if supplementaryPairs[pair] != r {
			t.Errorf("%U %U makes %U; supplementaryPairs says %U", pair[0], pair[1], r, supplementaryPairs[pair])
		}
	}
	for pair, r := range supplementaryPairs {
		if found[pair] != r {
			t.Errorf("supplementaryPairs has %U %U → %U, which x/text's tables do not", pair[0], pair[1], r)
		}
	}
}

// TestComposeMatchesXText: within the BMP, compose of a decomposed text is x/text's NFC and
// NFKC wherever x/text's is canonically equivalent to the text, on random texts of starters,
// marks of several combining classes, Hangul jamo, excluded and singleton decompositions and
// invalid bytes; with runes past the BMP too, composed's result is canonically equivalent to
// the text and in its form (composing it again changes nothing).
func TestComposeMatchesXText(t *testing.T) {
	bmp := []string{"a", "e", "A", "o", "u", "s", "\u0301", "\u0300", "\u0323", "\u0308", "\u0327",
		"\u0345", "\u05B0", "\u0B47", "\u0B3E", "\u0B57", "\u1100", "\u1161", "\u11A8", "\uAC00",
		"\u0958", "\u212B", "\u2126", "\u0F73", "\u1E9B", "\uFB01", "\u3099", "\u304B", "\xff", " "}
	supp := []string{"\U00010041", "\U00020041", "\U00021099", "\U00011099", "\U000110BA", "\u1099",
		"\U00011347", "\U0001133E", "\U00011357", "\U0001F600", "\U0001D15E", "\U0001D165", "\U00011131", "\U00011127"}
	rng := rand.New(rand.NewPCG(53, 1))
	text := func(pool []string) string {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(pool[rng.IntN(len(pool))])
		}
		return b.String()
	}
	for range 5000 {
		s := text(bmp)
		for _, f := range []composed{{norm.NFC, norm.NFD}, {norm.NFKC, norm.NFKD}} {
			d := f.decomposed.String(s)
			want := f.form.String(s)
			if f.decomposed.String(want) != d {
				continue // x/text's is wrong here (TestComposedForms)
			}
			if got := compose(d); got != want {
				t.Fatalf("%+q: compose gives %+q, x/text %+q", s, got, want)
			}
		}
	}
	all := slices.Concat(bmp, supp)
	for _, f := range []composed{{norm.NFC, norm.NFD}, {norm.NFKC, norm.NFKD}} {
		for range 5000 {
			s := text(all)
			got := f.String(s)
			if f.decomposed.String(got) != f.decomposed.String(s) {
				t.Fatalf("%+q → %+q: not canonically equivalent", s, got)
			}
			if again := f.String(got); again != got {
				t.Fatalf("%+q → %+q, then %+q: not in the form", s, got, again)
			}
		}
	}
}
