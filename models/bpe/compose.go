package bpe

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// composed is a composing Unicode form (NFC or NFKC) that stays right where
// golang.org/x/text's composition does not. Its table of pairs is keyed by the low 16 bits
// of each rune, so a pair with a rune outside the Basic Multilingual Plane can compose as
// the BMP pair it aliases (U+10041 U+0301 becomes 'Á', U+1099 U+110BA the Kaithi letter
// U+1109A); and it blocks a mark only by the character just before it, so a starter that
// combines backward between a starter and a mark does not block them (e U+05B0 U+0B57
// U+0327 becomes ȩ U+05B0 U+0B57). Either way its result is not canonically equivalent to the
// text: a text that is not all ASCII is normalized by x/text and checked, and when the result
// does not decompose to the text's own decomposition, the text is composed again here from
// x/text's decomposition (which is right: it reads no pair table) by the canonical
// composition algorithm of UAX #15, pairs within the BMP looked up in x/text and the others
// in supplementaryPairs.
type composed struct {
	form, decomposed norm.Form // NFC and NFD, or NFKC and NFKD
}

// String returns s in the form.
func (c composed) String(s string) string {
	out := c.form.String(s)
	if ascii(s) {
		return out
	}
	d := c.decomposed.String(s)
	if c.decomposed.String(out) == d {
		return out
	}
	return compose(d)
}

// ascii reports whether s is all ASCII, which every form leaves as it is.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// supplementaryPairs are the canonical compositions of Unicode 15.0 (x/text's tables, which
// TestSupplementaryPairs checks this list against) whose runes lie outside the BMP: each
// starter and mark with the primary composite they make.
var supplementaryPairs = map[[2]rune]rune{
	{0x11099, 0x110BA}: 0x1109A, {0x1109B, 0x110BA}: 0x1109C, {0x110A5, 0x110BA}: 0x110AB, // Kaithi
	{0x11131, 0x11127}: 0x1112E, {0x11132, 0x11127}: 0x1112F, // Chakma
	{0x11347, 0x1133E}: 0x1134B, {0x11347, 0x11357}: 0x1134C, // Grantha
	{0x114B9, 0x114BA}: 0x114BB, {0x114B9, 0x114B0}: 0x114BC, {0x114B9, 0x114BD}: 0x114BE, // Tirhuta
	{0x115B8, 0x115AF}: 0x115BA, {0x115B9, 0x115AF}: 0x115BB, // Siddham
	{0x11935, 0x11930}: 0x11938, // Dives Akuru
}

// primary returns the primary composite of starter a and b, or -1 when they make none.
func primary(a, b rune) rune {
	if a > 0xFFFF || b > 0xFFFF {
		if p, ok := supplementaryPairs[[2]rune{a, b}]; ok {
			return p
		}
		return -1
	}
	if norm.NFC.PropertiesString(string(b)).BoundaryBefore() {
		return -1 // b never combines with what precedes it
	}
	s := norm.NFC.String(string(a) + string(b))
	if r, n := utf8.DecodeRuneInString(s); n == len(s) {
		return r
	}
	return -1
}

// compose applies canonical composition (UAX #15) to d, a text in a decomposed form: each
// character that is not blocked from the last starter (no character between them of
// combining class 0 or of one at least its own) and makes a primary composite with it
// replaces the starter by that composite. A byte that is not UTF-8 is kept as it is and
// composes with nothing, as in x/text.
func compose(d string) string {
	var b strings.Builder
	b.Grow(len(d))
	var out []rune
	starter := -1 // index in out of the last starter
	flush := func() {
		for _, r := range out {
			b.WriteRune(r)
		}
		out, starter = out[:0], -1
	}
	for i := 0; i < len(d); {
		r, n := utf8.DecodeRuneInString(d[i:])
		if r == utf8.RuneError && n == 1 {
			flush()
			b.WriteByte(d[i])
			i++
			continue
		}
		i += n
		ccc := norm.NFC.PropertiesString(string(r)).CCC()
		if starter >= 0 {
			last := len(out) - 1
			blocked := last != starter && norm.NFC.PropertiesString(string(out[last])).CCC() >= ccc
			if !blocked {
				if p := primary(out[starter], r); p >= 0 {
					out[starter] = p
					continue
				}
			}
		}
		if ccc == 0 {
			starter = len(out)
		}
		out = append(out, r)
	}
	flush()
	return b.String()
}
