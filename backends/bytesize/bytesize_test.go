package bytesize

import "testing"

// TestString: KiB rounded to the nearest below 1 MiB, MiB to the nearest below 1 GiB, GiB to one decimal from it up.
func TestString(t *testing.T) {
	for _, c := range []struct {
		b    int64
		want string
	}{
		{0, "0 KiB"},
		{511, "0 KiB"},
		{512, "1 KiB"},
		{1<<19 - 1, "512 KiB"},
		{1<<20 - 1, "1024 KiB"},
		{1 << 20, "1 MiB"},
		{1<<20 + 1<<19, "2 MiB"},
		{300 << 20, "300 MiB"},
		{1<<30 - 1, "1024 MiB"},
		{1 << 30, "1.0 GiB"},
		{3<<30 + 1<<29, "3.5 GiB"},
		{140 << 30, "140.0 GiB"},
	} {
		if got := String(c.b); got != c.want {
			t.Errorf("String(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}
