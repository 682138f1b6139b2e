package derived

import "testing"

func TestCommonName(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""}, {[]string{""}, ""}, {[]string{"a"}, "a"}, {[]string{"a", "a"}, "a"},
		{[]string{"a", "b"}, ""}, {[]string{"a", ""}, ""}, {[]string{"", "a"}, ""},
	} {
		if got := CommonName(c.names); got != c.want {
			t.Errorf("CommonName(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
