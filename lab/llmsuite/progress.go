package llmsuite

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Bar draws the suite's progress (Options.Progress: Update) on a writer: a bar redrawn in
// place on a terminal, one line per stage otherwise.
type Bar struct {
	w        io.Writer
	tty      bool
	stage    string
	start    time.Time
	last     time.Time
	finished bool
}

// NewBar draws on w, in place when tty says w is a terminal.
func NewBar(w io.Writer, tty bool) *Bar {
	return &Bar{w: w, tty: tty, start: time.Now()}
}

// Update shows the steps done of a stage's total (at most five redraws a second).
func (p *Bar) Update(stage string, done, total int) {
	if stage != p.stage {
		if p.stage != "" && p.tty {
			fmt.Fprintln(p.w)
		}
		p.stage, p.start = stage, time.Now()
		if !p.tty {
			fmt.Fprintf(p.w, "windtunnel: %s: %d steps\n", stage, total)
		}
	}
	if !p.tty || (time.Since(p.last) < 200*time.Millisecond && done < total) {
		return
	}
	p.last = time.Now()
	const width = 30
	fill := width * done / max(1, total)
	eta := ""
	if done > 0 && done < total {
		left := time.Duration(float64(time.Since(p.start)) * float64(total-done) / float64(done))
		eta = ", " + left.Round(time.Second).String() + " left"
	}
	fmt.Fprintf(p.w, "\r%-18s [%s%s] %3d%%%s   ", stage, strings.Repeat("█", fill), strings.Repeat("·", width-fill), 100*done/max(1, total), eta)
}

// Done ends the bar's line on a terminal (once).
func (p *Bar) Done() {
	if p.tty && p.stage != "" && !p.finished {
		fmt.Fprintln(p.w)
	}
	p.finished = true
}
