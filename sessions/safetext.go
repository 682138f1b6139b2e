package sessions

import (
	"strings"
	"unicode/utf8"
	"windtunnel/diagnostics"
)

// SafeText returns s made safe to print on a terminal or write into an export. Strings a
// session file or a control socket holds (a meta's host, task, model, device and version, a
// record's message, an event's sender) are untrusted: printed as they are, an escape
// sequence in one could set the terminal's title, write the clipboard (OSC 52), move the
// cursor over earlier output or hide text.
//
//   - Escape sequences are removed whole: ESC followed by a CSI (ESC [ … final byte), a
//     string (OSC ESC ], DCS ESC P, SOS ESC X, PM ESC ^, APC ESC _: up to BEL or the string
//     terminator ESC \, or to the end when unterminated) or one more character; so are
//     their 8-bit C1 forms (U+009B CSI, U+009D OSC, U+0090 DCS, U+0098 SOS, U+009E PM,
//     U+009F APC).
//   - Tab, line feed, vertical tab, form feed and carriage return become a space (the
//     strings are one line wherever they are shown).
//   - Every other control character (C0 and NUL, BEL, backspace, DEL, the C1 range) and the
//     bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) become U+FFFD, as
//     does each byte of invalid UTF-8.
//
// Printable text, valid UTF-8 included, is kept as it is; a string that needs no change is
// returned without allocating.
func SafeText(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x1b:
			n += skipEscape(s[i+n:])
		case r == 0x9b:
			n += skipCSI(s[i+n:])
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
			n += skipString(s[i+n:])
		case r == '\t' || r == '\n' || r == '\v' || r == '\f' || r == '\r':
			b.WriteByte(' ')
		case unsafeRune(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isSafe reports whether s is printable ASCII, or valid UTF-8 without a rune SafeText changes.
func isSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return utf8.ValidString(s) && !strings.ContainsFunc(s[i:], func(r rune) bool {
				return r < 0x20 || unsafeRune(r)
			})
		}
	}
	return true
}

// unsafeRune reports the control and bidirectional-formatting runes SafeText replaces.
func unsafeRune(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// skipEscape returns the length of what follows an ESC as part of its sequence.
func skipEscape(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case '[':
		return 1 + skipCSI(s[1:])
	case ']', 'P', 'X', '^', '_':
		return 1 + skipString(s[1:])
	}
	if s[0] < 0x20 || s[0] >= 0x7f { // ESC then a control or non-ASCII: only the ESC goes
		return 0
	}
	return 1 // a two-character sequence (ESC 7, ESC c, ESC ( B's introducer …)
}

// skipCSI returns the length of a control sequence's parameters, intermediates and final
// byte (0x40–0x7e); an unterminated one runs to the first byte that cannot continue it.
func skipCSI(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x20 && c <= 0x3f:
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return len(s)
}

// skipString returns the length of a control string up to and including its terminator
// (BEL, ESC \, or U+009C), or all of s when it has none.
func skipString(s string) int {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + 2
		}
	}
	return len(s)
}

// Sanitize makes the meta's strings safe to print (SafeText), the stored configuration's
// included: control characters there become what SafeText makes of them, which keeps valid
// JSON valid (whitespace stays whitespace, escapes such as \u001b stay escaped).
func (m *Meta) Sanitize() {
	for _, p := range []*string{&m.Task, &m.Model, &m.Device, &m.DeviceName, &m.Driver, &m.BLAS, &m.Version, &m.Host, &m.Path, &m.Socket} {
		*p = SafeText(*p)
	}
	if c := string(m.Config); !isSafe(c) {
		m.Config = []byte(SafeText(c))
	}
}

// Sanitize makes the record's strings safe to print (SafeText): its state, message and the
// unit names of its snapshot's ablation.
func (r *Record) Sanitize() {
	r.State = State(SafeText(string(r.State)))
	r.Message = SafeText(r.Message)
	if s := r.Snapshot; s != nil {
		for i := range s.Ablation {
			s.Ablation[i].Unit = SafeText(s.Ablation[i].Unit)
		}
		for _, e := range []*diagnostics.Effect{s.Costliest, s.CostliestHead} {
			if e != nil {
				e.Unit = SafeText(e.Unit)
			}
		}
	}
}

// Sanitize makes the event's kind and sender safe to print (SafeText).
func (e *Event) Sanitize() {
	e.Kind = EventKind(SafeText(string(e.Kind)))
	e.By = SafeText(e.By)
}

// SafeLines is text made safe to print (SafeText) line by line, its line breaks kept: an
// error message or a table that may quote a string read from a session, a socket or a
// file name.
func SafeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = SafeText(l)
	}
	return strings.Join(lines, "\n")
}
