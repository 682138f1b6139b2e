package export

import (
	"bytes"
	"strings"
	"testing"
)

// TestCheck: every format and kind export writes passes; the others are refused naming
// the flag, snapshots in CSV with the format to use.
func TestCheck(t *testing.T) {
	for _, c := range []struct{ format, what, want string }{
		{"csv", "scalars", ""},
		{"jsonl", "per-position", ""},
		{"csv", "events", ""},
		{"jsonl", "snapshots", ""},
		{"tensorboard", "scalars", ""},
		{"tensorboard", "events", `--what "events": --format tensorboard writes the scalars and histograms; leave --what out`},
		{"tsv", "scalars", `--format "tsv": want csv, jsonl or tensorboard`},
		{"csv", "snapshots", "--what snapshots: nested tables; use --format jsonl"},
		{"jsonl", "curves", `--what "curves": want scalars, per-position, snapshots or events`},
	} {
		err := Check(c.format, c.what)
		if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%s %s: %v, want %q", c.format, c.what, err, c.want)
		}
	}
}

// TestWrite: events go to Events (their CSV header), the rest to Records.
func TestWrite(t *testing.T) {
	r := session(t)
	for _, c := range []struct{ what, head string }{
		{"events", "step,wall_s,kind,layer,head,on,by\n"},
		{"scalars", "step,wall_s,loss,"},
		{"per-position", "step,ablated,position,"},
	} {
		var b bytes.Buffer
		if err := Write(r, &b, "csv", c.what); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if !strings.HasPrefix(b.String(), c.head) {
			t.Errorf("%s: starts %q, want %q", c.what, b.String()[:min(40, b.Len())], c.head)
		}
	}
}
