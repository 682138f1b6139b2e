package launch

import "testing"

// TestCheckResumeFlags: the flags that only change how a resumed run computes or prints
// pass (and --resume itself); any other is refused, every one named, with the allowed list.
func TestCheckResumeFlags(t *testing.T) {
	allowed := "(allowed: --steps, --workers, --blas, --device, --headless, --detach, --predictions, --json)"
	for _, c := range []struct {
		given []string
		want  string // "" accepted
	}{
		{nil, ""},
		{[]string{"resume"}, ""},
		{[]string{"blas", "device", "json", "resume", "steps", "workers", "headless", "detach", "predictions"}, ""},
		{[]string{"lr", "resume"}, "--resume takes the run's settings from the session; --lr cannot change them " + allowed},
		{[]string{"k", "steps", "task"}, "--resume takes the run's settings from the session; --k, --task cannot change them " + allowed},
	} {
		err := CheckResumeFlags(c.given)
		if (err == nil) != (c.want == "") || err != nil && err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.given, err, c.want)
		}
	}
}
