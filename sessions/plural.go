package sessions

import "strconv"

// Plural is n with the noun, given singular, that follows it: "1 task", "3 tasks", "0 running
// points" (an s added unless n is 1) — the one home of the counts the commands print.
func Plural(n int, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return strconv.Itoa(n) + " " + noun
}
