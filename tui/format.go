package tui

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// fsigned formats a difference with an explicit sign.
func fsigned(v float64, dec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

// fduration formats a duration as 45s, 3m20s or 2h05m.
func fduration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%dh%02dm", s/3600, (s%3600)/60)
	}
}

// headName names a head as L1H2.
func headName(layer, head int) string {
	return fmt.Sprintf("L%dH%d", layer, head)
}
