package bpe

import (
	"encoding/json"
	"fmt"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// normalizer rewrites a stretch of text before pre-tokenization.
type normalizer struct {
	name string // as errors name it: "Replace normalizer"
	// size returns the length apply(s) will have, sameText when apply returns s itself,
	// or sizeAfter when it is known only after: at most ratio × len(s).
	size  func(s string) int
	apply func(s string) string
	ratio int
}

// What a normalizer's size returns besides a length.
const (
	sameText  = -1
	sizeAfter = -2
)

// unicodeForm is a Unicode normal form, which makes at most ratio bytes of one: 3 for NFC
// and NFD (U+1D160, U+0390), 11 for NFKC and NFKD (U+FDFA: 3 bytes to 33), as
// TestNormMaxRatio checks over every rune. The composing forms go through composed, which
// mends x/text's compositions of runes past the BMP.
func unicodeForm(name string, apply func(string) string, ratio int) normalizer {
	return normalizer{name: name + " normalizer", size: func(string) int { return sizeAfter }, apply: apply, ratio: ratio}
}

// parseNormalizer reads a normalizer (a Sequence flattened): at most MaxStages in all, the
// strings it inserts at most MaxContentBytes each.
func parseNormalizer(raw json.RawMessage) ([]normalizer, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var ty typed
	if err := json.Unmarshal(raw, &ty); err != nil {
		return nil, fmt.Errorf("bpe: normalizer: %w", err)
	}
	switch ty.Type {
	case "NFC":
		return []normalizer{unicodeForm("NFC", composed{norm.NFC, norm.NFD}.String, 3)}, nil
	case "NFD":
		return []normalizer{unicodeForm("NFD", norm.NFD.String, 3)}, nil
	case "NFKC":
		return []normalizer{unicodeForm("NFKC", composed{norm.NFKC, norm.NFKD}.String, 11)}, nil
	case "NFKD":
		return []normalizer{unicodeForm("NFKD", norm.NFKD.String, 11)}, nil
	case "Prepend":
		var p struct {
			Prepend string `json:"prepend"`
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("bpe: Prepend normalizer: %w", err)
		}
		if err := checkContent("Prepend normalizer", "prepend", p.Prepend); err != nil {
			return nil, err
		}
		return []normalizer{{name: "Prepend normalizer",
			size: func(s string) int {
				if s == "" || p.Prepend == "" {
					return sameText
				}
				return len(p.Prepend) + len(s)
			},
			apply: func(s string) string {
				if s == "" {
					return s
				}
				return p.Prepend + s
			}}}, nil
	case "Replace":
		var r struct {
			Pattern struct {
				String *string `json:"String"`
				Regex  *string `json:"Regex"`
			} `json:"pattern"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("bpe: Replace normalizer: %w", err)
		}
		if r.Pattern.String == nil || *r.Pattern.String == "" {
			return nil, fmt.Errorf("bpe: Replace normalizer: only a non-empty String pattern is supported")
		}
		from, to := *r.Pattern.String, r.Content
		if err := checkContent("Replace normalizer", "pattern", from); err != nil {
			return nil, err
		}
		if err := checkContent("Replace normalizer", "content", to); err != nil {
			return nil, err
		}
		return []normalizer{{name: "Replace normalizer",
			size: func(s string) int {
				n := strings.Count(s, from)
				if n == 0 {
					return sameText
				}
				return len(s) + n*(len(to)-len(from))
			},
			apply: func(s string) string { return strings.ReplaceAll(s, from, to) }}}, nil
	case "Sequence":
		var sq struct {
			Normalizers []json.RawMessage `json:"normalizers"`
		}
		if err := json.Unmarshal(raw, &sq); err != nil {
			return nil, fmt.Errorf("bpe: Sequence normalizer: %w", err)
		}
		var out []normalizer
		for _, n := range sq.Normalizers {
			ns, err := parseNormalizer(n)
			if err != nil {
				return nil, err
			}
			if out = append(out, ns...); len(out) > MaxStages {
				return nil, fmt.Errorf("bpe: normalizer: more than %d normalizers (Sequences counted through)", MaxStages)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("bpe: normalizer %q is not supported", ty.Type)
}

// checkContent refuses a string a component inserts (field of what) longer than
// MaxContentBytes.
func checkContent(what, field, s string) error {
	if len(s) > MaxContentBytes {
		return fmt.Errorf("bpe: %s: %s of %d bytes, over the limit of %d", what, field, len(s), MaxContentBytes)
	}
	return nil
}
