package bpe

// byteChars maps each byte to the printable character GPT-2's bytes_to_unicode gives it:
// the printable Latin-1 bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') to themselves, the other 68
// in order to U+0100 onwards (space → 'Ġ', newline → 'Ċ').
func byteChars() [256]rune {
	var m [256]rune
	printable := func(b int) bool {
		return (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff)
	}
	n := 0
	for b := range 256 {
		if printable(b) {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}

// charBytes is byteChars inverted.
func charBytes(m [256]rune) map[rune]byte {
	out := make(map[rune]byte, 256)
	for b, r := range m {
		out[r] = byte(b)
	}
	return out
}
