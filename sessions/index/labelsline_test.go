package index

import (
	"testing"

	"windtunnel/sessions"
)

func TestLabelsLine(t *testing.T) {
	for _, c := range []struct {
		l    sessions.Labels
		want string
	}{
		{sessions.Labels{}, "r.wtlab: name - · tags - · note -"},
		{sessions.Labels{Name: "base", Tags: []string{"a", "b"}, Note: "one\ntwo"}, "r.wtlab: name base · tags a,b · note one …"},
	} {
		if got := LabelsLine("r.wtlab", c.l); got != c.want {
			t.Errorf("LabelsLine(%+v) = %q, want %q", c.l, got, c.want)
		}
	}
}
