package bytesize

import "fmt"

// String is b bytes for a message: whole KiB (rounded) below 1 MiB, whole MiB below 1 GiB,
// where a tiny run's "0.0 GiB" against "0.0 GiB available" said nothing; GiB to one decimal
// from 1 GiB up.
func String(b int64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%d KiB", (b+1<<9)>>10)
	}
	if b < 1<<30 {
		return fmt.Sprintf("%d MiB", (b+1<<19)>>20)
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}
