package timescales

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSettingsConfig(t *testing.T) {
	ok := Settings{Seeds: 2, Steps: Steps, LR: LR, ValueLR: ValueLR, Length: Length, Workers: 3, BLAS: "go"}
	c, err := ok.Config()
	if err != nil || !slices.Equal(c.Seeds, AuthorsSeeds[:2]) || c.Workers != 3 || c.Backend == nil {
		t.Fatalf("Config(%+v) = seeds %v, workers %d, %v", ok, c.Seeds, c.Workers, err)
	}
	list := ok
	list.SeedList, list.SeedListGiven = []uint{7, 8, 9}, true
	if c, err := list.Config(); err != nil || !slices.Equal(c.Seeds, []uint64{7, 8, 9}) {
		t.Errorf("--seed-list 7,8,9: seeds %v, %v", c.Seeds, err)
	}
	for _, tc := range []struct {
		edit func(*Settings)
		want string
	}{
		{func(s *Settings) { s.SeedsGiven, s.SeedListGiven, s.SeedList = true, true, []uint{1} }, "--seeds and --seed-list: give one"},
		{func(s *Settings) { s.Seeds = 0 }, "--seeds 0: want 1..5"},
		{func(s *Settings) { s.Seeds = 6 }, "--seeds 6: want 1..5"},
		{func(s *Settings) { s.SeedListGiven = true }, "--seed-list is empty"},
		{func(s *Settings) { s.Workers = -1 }, "--workers -1: want ≥ 0"},
		{func(s *Settings) { s.BLAS = "mkl" }, `--blas "mkl": want auto, go, openblas or gonum`},
		{func(s *Settings) { s.Steps = 0 }, "--steps 0: want"},
		{func(s *Settings) { s.LR = -1 }, "--lr -1: want"},
		{func(s *Settings) { s.Length = 1 }, "--length 1: want"},
	} {
		s := ok
		tc.edit(&s)
		if _, err := s.Config(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Config(%+v) = %v, want an error containing %q", s, err, tc.want)
		}
	}
	zero := ok
	zero.Workers = 0
	if c, _ := zero.Config(); c.Workers < 1 {
		t.Errorf("--workers 0: %d workers, want every core", c.Workers)
	}
}

func TestProgressPrinter(t *testing.T) {
	var b bytes.Buffer
	p := ProgressPrinter(&b, false, time.Now())
	p(Progress{Steps: 100, TotalSteps: 400, Arms: 0, TotalArms: 4}) // no arm ended: nothing off a terminal
	p(Progress{Steps: 1000, TotalSteps: 4000, Arms: 1, TotalArms: 4})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "timescales: 1/4 arms, 1,000/4,000 steps, ") || !strings.Contains(lines[0], "ETA ") {
		t.Errorf("progress %q: want one line at the arm's end", b.String())
	}
	b.Reset()
	ProgressPrinter(&b, true, time.Now())(Progress{Steps: 0, TotalSteps: 10, TotalArms: 2})
	if got := b.String(); !strings.HasPrefix(got, "\r\033[Ktimescales: 0/2 arms, 0/10 steps") || !strings.HasSuffix(got, "ETA —") {
		t.Errorf("terminal progress %q: want the line rewritten in place, no ETA before a step", got)
	}
}
