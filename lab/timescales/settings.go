package timescales

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"windtunnel/backends/gemm"
	"windtunnel/models/arch"
	"windtunnel/tui/look"
)

// Settings are the experiment's settings as `windtunnel timescales` takes them: the first
// Seeds of AuthorsSeeds or SeedList instead (SeedsGiven and SeedListGiven say which flags
// were given), the schedule, the arms trained at once (0: every core) and the matrix-product
// backend by name.
type Settings struct {
	Seeds                     int
	SeedList                  []uint
	SeedsGiven, SeedListGiven bool
	Steps, Length, Workers    int
	LR, ValueLR               float64
	BLAS                      string
}

// flagNames names the flag that sets each Config field.
var flagNames = map[string]string{"Seeds": "seed-list", "Steps": "steps", "LR": "lr", "ValueLR": "value-lr", "Length": "length"}

// Config checks the settings and builds the experiment's configuration; an error names the
// flag at fault (--seeds 9: want 1..5 ...).
func (s Settings) Config() (Config, error) {
	c := DefaultConfig()
	switch {
	case s.SeedsGiven && s.SeedListGiven:
		return c, errors.New("--seeds and --seed-list: give one")
	case s.Seeds < 1 || s.Seeds > len(AuthorsSeeds):
		return c, fmt.Errorf("--seeds %d: want 1..%d (the authors' seeds; --seed-list for others)", s.Seeds, len(AuthorsSeeds))
	case s.SeedListGiven && len(s.SeedList) == 0:
		return c, errors.New("--seed-list is empty")
	case s.Workers < 0:
		return c, fmt.Errorf("--workers %d: want ≥ 0 (0: all cores)", s.Workers)
	}
	c.Seeds = c.Seeds[:s.Seeds]
	if s.SeedListGiven {
		c.Seeds = c.Seeds[:0]
		for _, v := range s.SeedList {
			c.Seeds = append(c.Seeds, uint64(v))
		}
	}
	c.Steps, c.LR, c.ValueLR, c.Length = s.Steps, s.LR, s.ValueLR, s.Length
	c.Workers = s.Workers
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	switch s.BLAS {
	case "auto", "go", "openblas", "gonum":
	default:
		return c, fmt.Errorf("--blas %q: want auto, go, openblas or gonum", s.BLAS)
	}
	blas := s.BLAS
	c.Backend = func() (gemm.Backend, error) { return gemm.Open(blas) }
	if err := c.Validate(); err != nil {
		var fe *arch.FieldError
		if errors.As(err, &fe) {
			if name, ok := flagNames[fe.Field]; ok {
				return c, fmt.Errorf("--%s %v: %s", name, fe.Value, fe.Reason)
			}
		}
		return c, err
	}
	return c, nil
}

// ProgressPrinter prints the experiment's progress on w, as run prints a run's: on a
// terminal (tty) one line rewritten in place (at most every 100 ms, and at each arm's end),
// else a line at each arm's end: "timescales: 3/10 arms, 3,000/10,000 steps, 4.2 s, ETA 10s".
func ProgressPrinter(w io.Writer, tty bool, start time.Time) func(Progress) {
	var last time.Time
	arms := 0
	return func(p Progress) {
		ended := p.Arms > arms
		arms = p.Arms
		if !ended && (!tty || time.Since(last) < 100*time.Millisecond) {
			return
		}
		last = time.Now()
		el := time.Since(start)
		eta := "ETA —"
		if p.Steps > 0 {
			eta = "ETA " + (time.Duration(float64(el) * float64(p.TotalSteps-p.Steps) / float64(p.Steps))).Round(time.Second).String()
		}
		line := fmt.Sprintf("timescales: %d/%d arms, %s/%s steps, %.1f s, %s", p.Arms, p.TotalArms,
			look.Count(p.Steps), look.Count(p.TotalSteps), el.Seconds(), eta)
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", line)
		} else {
			fmt.Fprintln(w, line)
		}
	}
}
