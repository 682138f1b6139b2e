package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/sparkline"

	"windtunnel/sessions"
	"windtunnel/tui/look"
)

// runPane shows what runs where and how far it is: task, model, device, step, speed, ETA,
// loss, bit error, state and the session file, with a loss sparkline when there is room.
type runPane struct {
	paneBase
	losses   []float64
	lossTo   int  // the step the losses were read up to
	lossW    int  // and the sparkline width they were thinned to
	lossOK   bool // losses hold that read
	sparkOut []string
	sparkKey [3]int // lossTo, w, h of sparkOut
}

// runLines is the number of text lines of the run pane before the sparkline, and rowKeyW
// the width of their names' column.
const (
	runLines = 10
	rowKeyW  = 10
)

// newRunPane returns the pane reading sh.
func newRunPane(sh *shared) *runPane { return &runPane{paneBase: newPaneBase(sh, "Run", "Run")} }

// clone copies the pane onto sh.
func (p *runPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// sparkSize is the size of the loss sparkline (0×0 when it does not fit).
func (p *runPane) sparkSize() (int, int) {
	if p.h < runLines+2 || p.w < rowKeyW+10 {
		return 0, 0
	}
	return p.w - rowKeyW, min(p.h-runLines, 6)
}

// sparkTo is the step the loss sparkline is drawn up to: the current step rounded down to
// a multiple of a power-of-two stride of about a column's worth of steps. The curve then
// changes (and is read and drawn again) once per stride instead of on every record; the
// loss line above it shows the newest value.
func sparkTo(first, step, cols int) int {
	if cols <= 0 || step <= first {
		return step
	}
	q := 1
	for q*cols < step-first {
		q *= 2
	}
	q = max(q/2, 1)
	return first + (step-first)/q*q
}

// Refresh reads the loss curve up to the current step (sparkTo while following a live
// run), thinned to the sparkline's width, unless it
// holds that read already.
func (p *runPane) Refresh() error {
	w, _ := p.sparkSize()
	if w == 0 || !p.sh.any {
		p.losses, p.lossOK = nil, false
		return nil
	}
	to := p.sh.step
	if p.sh.follow && !p.sh.replay && !p.sh.ended {
		to = sparkTo(p.sh.first, p.sh.step, w) // following a live run: once per stride
	}
	if p.lossOK && p.lossTo == to && p.lossW == w {
		return nil
	}
	recs, err := p.sh.feed.Scalars(to, w)
	if err != nil {
		p.losses, p.lossOK = nil, false
		return err
	}
	p.losses, p.lossTo, p.lossW, p.lossOK = nil, to, w, true
	for _, r := range recs {
		if !math.IsNaN(r.Loss) && !math.IsInf(r.Loss, 0) {
			p.losses = append(p.losses, r.Loss)
		}
	}
	return nil
}

// runKey is what the run pane's view depends on: its size and the refresh (the pane shows
// the newest record, which changes with every refresh).
type runKey struct{ w, h, gen int }

// View renders the run's description and progress (cached until the next refresh).
func (p *runPane) View() string {
	return p.cache.get(p.sh, runKey{p.w, p.h, p.sh.gen}, p.draw)
}

// draw renders the view.
func (p *runPane) draw() string {
	sh := p.sh
	m, r := sh.meta, sh.rec
	row := func(k, v string) string { return fmt.Sprintf("%-*s%s", rowKeyW, k, v) }
	lines := []string{
		row("task", m.Task),
		row("model", modelLine(m)),
		row("device", deviceLine(m)),
		row("step", stepLine(sh)),
		row("speed", speedLine(sh)),
		row("loss", fmt.Sprintf("%s · lr %.1e · grad %s", look.Num(r.Loss, 4), r.LR, look.Num(r.GradNorm, 2))),
		row("bit error", bitErrorLine(sh)),
		row("verdict", verdictLine(sh)),
		row("state", paneStateLine(sh)),
		row("session", look.CutLeft(orDash(sessions.SafeText(m.Path)), p.w-rowKeyW)), // the file name says the most; it may be anyone's
	}
	if !sh.hasRec {
		lines[4], lines[5] = row("speed", "–"), row("loss", "–")
	}
	if w, h := p.sparkSize(); w > 0 && len(p.losses) > 0 {
		if k := [3]int{p.lossTo, w, h}; p.sparkOut == nil || p.sparkKey != k {
			p.sparkOut, p.sparkKey = p.spark(w, h, row), k
		}
		lines = append(lines, p.sparkOut...)
	}
	return look.Fit(strings.Join(lines, "\n"), p.w, p.h)
}

// spark draws the loss curve as a sparkline of w×h cells over its own range (minimum at
// the bottom), labelled with that range.
func (p *runPane) spark(w, h int, row func(k, v string) string) []string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range p.losses {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	hiS, loS := look.Num(hi, 2), look.Num(lo, 2)
	lw := max(len(hiS), len(loS)) + 1
	sl := sparkline.New(w-lw, h, sparkline.WithNoAutoMaxValue(), sparkline.WithMaxValue(math.Max(hi-lo, 1e-9)*1.05))
	// One value per column: the sparkline keeps only the newest w−lw values, and the
	// oldest (the start of training, the highest loss) must not scroll out.
	for _, i := range sessions.Thin(len(p.losses), w-lw) {
		sl.Push(p.losses[i] - lo + 1e-9*(hi-lo))
	}
	sl.Draw()
	var out []string
	for i, l := range strings.Split(sl.View(), "\n") {
		k, tag := "", ""
		switch i {
		case 0:
			k, tag = "loss", hiS
		case h - 1:
			tag = loS
		}
		out = append(out, row(k, l+" "+tag))
	}
	return out
}

// headerLines is the compact run summary shown above the tabs on small terminals.
func headerLines(sh *shared) string {
	m, r := sh.meta, sh.rec
	shape := ""
	if m.Layers > 0 && m.Heads > 0 {
		shape = fmt.Sprintf(" %dL×%dH", m.Layers, m.Heads)
	}
	lead := stateLine(sh)
	if sh.replay {
		lead = replayLine(sh)
	}
	l1 := fmt.Sprintf("%s %s · %s · %s%s · %s params · %s", modeBadge(sh), lead, m.Task, m.Model, shape,
		look.Count(m.Params), deviceLine(m))
	if !sh.hasRec {
		return l1 + "\nstep – · waiting for the first record"
	}
	be := "–"
	if e := sh.lastEval(); e != nil {
		be = fmt.Sprintf("(a) %s (b) %s", look.Num(e.Eval.BitErrorPosition, 3), look.Num(e.Eval.BitErrorSample, 3))
	}
	step := fmt.Sprint(r.Step)
	if m.Steps > 0 {
		step += fmt.Sprintf("/%d", m.Steps)
	}
	speed := look.Num(r.StepsPerS, 1) + "/s"
	if etaShown(sh) {
		speed += " · ETA " + eta(m, r, sh.hasRec)
	}
	// The bit errors and the verdict come before the loss: the loss is the part left out
	// when the line does not fit (fitParts keeps the parts that fit, in order).
	be = "bit error " + be
	if v := verdictPart(sh); v != "" {
		be += " · " + v
	}
	l2 := fmt.Sprintf("step %s · %s · %s · loss %s", step, speed, be, look.Num(r.Loss, 3))
	if sh.replay { // the first line names the step; the Run pane has the state's message
		l2 = fmt.Sprintf("%s at this step · %s · %s · loss %s", stateWord(sh), speed, be, look.Num(r.Loss, 3))
	}
	return l1 + "\n" + l2
}

// modeBadge says whether the view is live or a replay, and whether it follows.
func modeBadge(sh *shared) string {
	switch {
	case sh.replay:
		return sh.st.Title.Render("■ REPLAY")
	case sh.ended:
		return sh.st.Title.Render("● LIVE (ended)")
	default:
		return sh.st.Good.Render("● LIVE")
	}
}

func modelLine(m sessions.Meta) string {
	s := m.Model
	if m.Params > 0 {
		s += " · " + look.Count(m.Params) + " params"
	}
	if m.Layers > 0 {
		s += fmt.Sprintf(" · %d layers", m.Layers)
		if m.Heads > 0 {
			s += fmt.Sprintf(" × %d heads", m.Heads)
		}
	}
	return s
}

func deviceLine(m sessions.Meta) string {
	s := orDash(m.Device)
	if m.DeviceName != "" {
		s += " · " + m.DeviceName
	}
	return s
}

func stepLine(sh *shared) string {
	if !sh.hasRec {
		return "–"
	}
	if sh.meta.Steps <= 0 {
		return fmt.Sprint(sh.rec.Step)
	}
	return fmt.Sprintf("%d/%d (%d%%)", sh.rec.Step, sh.meta.Steps, sh.rec.Step*100/sh.meta.Steps)
}

func bitErrorLine(sh *shared) string {
	e := sh.lastEval()
	if e == nil {
		return "–"
	}
	return fmt.Sprintf("(a) %s (b) %s KL %s @%d", look.Num(e.Eval.BitErrorPosition, 3), look.Num(e.Eval.BitErrorSample, 3),
		look.Num(e.Eval.KLBits, 3), e.Step)
}

func stateLine(sh *shared) string {
	if !sh.hasRec {
		return "waiting"
	}
	s := stateWord(sh)
	if sh.rec.Message != "" {
		s += " (" + sh.rec.Message + ")"
	}
	return s
}

// stateWord is the record's state, paused marked.
func stateWord(sh *shared) string {
	s := string(sh.rec.State)
	if sh.rec.State == sessions.Paused {
		s = sh.st.Warn.Render(s)
	}
	return s
}

// etaShown reports whether the view shows the time left: only while it follows the newest
// step of a live run. A replay, or a live run scrubbed back, shows the run as it was at
// the step instead, where an ETA would be a stale one.
func etaShown(sh *shared) bool { return !sh.replay && sh.follow }

// replayLine is where a replay is, "step 300 of 3000" (the state before the first record).
func replayLine(sh *shared) string {
	if !sh.hasRec {
		return stateLine(sh)
	}
	if sh.meta.Steps > 0 {
		return fmt.Sprintf("step %d of %d", sh.rec.Step, sh.meta.Steps)
	}
	return fmt.Sprintf("step %d", sh.rec.Step)
}

// stateAtStep is the run's state at the step a replay shows: "training at this step",
// "done at this step (600 steps)".
func stateAtStep(sh *shared) string {
	s := stateWord(sh) + " at this step"
	if sh.rec.Message != "" {
		s += " (" + sh.rec.Message + ")"
	}
	return s
}

// speedLine is the run pane's speed row: the speed and, following a live run, the ETA;
// else the speed the run had at the step.
func speedLine(sh *shared) string {
	v := look.Num(sh.rec.StepsPerS, 1) + " steps/s"
	if etaShown(sh) {
		return v + " · ETA " + eta(sh.meta, sh.rec, sh.hasRec)
	}
	return fmt.Sprintf("%s at step %d", v, sh.rec.Step)
}

// paneStateLine is the run pane's state row: the state, said to be the one at the step in
// a replay.
func paneStateLine(sh *shared) string {
	if sh.replay && sh.hasRec {
		return stateAtStep(sh) + " · replay"
	}
	return stateLine(sh)
}

// eta is the time left at the record's speed; it uses no clock, so replays read the same.
func eta(m sessions.Meta, r sessions.Record, ok bool) string {
	if !ok {
		return "–"
	}
	switch r.State {
	case sessions.Done, sessions.Stopped, sessions.Failed:
		return string(r.State)
	case sessions.Paused:
		return "paused"
	}
	if m.Steps <= 0 || r.StepsPerS <= 0 || math.IsNaN(r.StepsPerS) {
		return "–"
	}
	left := float64(m.Steps-r.Step) / r.StepsPerS
	return fduration(time.Duration(left * float64(time.Second)))
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
