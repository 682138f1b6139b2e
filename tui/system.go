package tui

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"windtunnel/sessions"
	"windtunnel/sessions/derived"
	"windtunnel/tui/look"
)

// sysInterval is how often the System pane samples the run's process.
const sysInterval = 2 * time.Second

// procSample is what the System pane knows of the run's process at one time: its CPU time
// so far (user and system), resident memory and threads.
type procSample struct {
	pid     int
	at      time.Time
	cpu     time.Duration
	rss     int64
	threads int
	ok      bool
}

// sysState is the process samples so far: the newest two (the CPU share is their
// difference), the history the pane charts, the reason the last one failed, and a version
// for the pane's cache.
type sysState struct {
	prev, last procSample
	hist       sysHistory
	err        string
	gen        int
}

// cpuShare is the CPU the process used between the last two samples, in cores (1.0: one
// core busy); false before two samples.
func (s sysState) cpuShare() (float64, bool) {
	if !s.prev.ok || !s.last.ok || !s.last.at.After(s.prev.at) {
		return 0, false
	}
	return float64(s.last.cpu-s.prev.cpu) / float64(s.last.at.Sub(s.prev.at)), true
}

// sysMsg carries a sample of the run's process, taken off the UI goroutine.
type sysMsg struct {
	s   procSample
	err error
}

// sampleSys samples process pid after d, as a message.
func sampleSys(pid int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg {
		s, err := readProc(pid)
		return sysMsg{s, err}
	})
}

// sysSampling reports whether the dashboard samples the run's process: a live run whose
// process it knows (Options.RunPID) and that has not ended.
func (m *Model) sysSampling() bool { return m.runPID > 0 && !m.sh.replay && !m.sh.ended }

// system takes a sample into the shared state and asks for the next while the run goes on.
func (m *Model) system(msg sysMsg) tea.Cmd {
	sys := &m.sh.sys
	if msg.err != nil {
		sys.err = msg.err.Error()
	} else {
		sys.prev, sys.last, sys.err = sys.last, msg.s, ""
		if c, ok := sys.cpuShare(); ok {
			sys.hist.add(sysPoint{at: sys.last.at, cpu: c, rssMB: float64(sys.last.rss) / (1 << 20)})
		}
	}
	sys.gen++
	m.render()
	if !m.sysSampling() {
		return nil
	}
	return sampleSys(m.runPID, sysInterval)
}

// systemPane shows what the run costs the machine: for a live run whose process the
// dashboard knows, that process's CPU (cores busy), resident memory and threads, sampled
// every sysInterval, and their history as charts (syshistory.go); for every run, the speed
// (and its history over steps), wall time without pauses, device and GPU share the session
// recorded; it says which is which.
type systemPane struct {
	paneBase
	pid int
}

// newSystemPane returns the pane reading sh, sampling process pid (0: unknown).
func newSystemPane(sh *shared, pid int) *systemPane {
	return &systemPane{paneBase: newPaneBase(sh, "System", "System"), pid: pid}
}

// clone copies the pane onto sh.
func (p *systemPane) clone(sh *shared) pane { return cloneOn(p, sh) }

// systemKey is what the pane's view depends on.
type systemKey struct {
	w, h, step, sys, scalars int
	curve                    cursorKey
}

// View renders the pane, redrawn only when an input changed.
func (p *systemPane) View() string {
	step := -1
	if p.sh.hasRec {
		step = p.sh.rec.Step
	}
	return p.cache.get(p.sh, systemKey{p.w, p.h, step, p.sh.sys.gen, p.sh.scalarGen, p.sh.curveKey()}, p.draw)
}

// draw renders the process's lines, then the recorded ones, then the history charts.
func (p *systemPane) draw() string {
	sh, w, h := p.sh, p.w, p.h
	row := func(k, v string) string { return fmt.Sprintf("%-*s%s", rowKeyW, k, v) }
	var lines []string
	sys := sh.sys
	switch {
	case sh.replay:
		lines = append(lines, sh.st.Dim.Render("replay: as the session recorded it (CPU and memory are not recorded)"))
	case p.pid <= 0:
		lines = append(lines, sh.st.Dim.Render("live: this viewer does not know the run's process; recorded values only"))
	case sys.last.ok && !sh.ended:
		head := fmt.Sprintf("live: process %d, sampled every %s", p.pid, sysInterval)
		lines = append(lines, sh.st.Dim.Render(head))
		cpu := "– (a second sample comes)"
		if c, ok := sys.cpuShare(); ok {
			cpu = fmt.Sprintf("%.0f%% (%.1f of %d cores) · %s in all", 100*c, c, sh.cores(), sys.last.cpu.Round(time.Second))
		}
		lines = append(lines, row("CPU", cpu), row("memory", fmt.Sprintf("%s resident · %d threads", bytesText(sys.last.rss), sys.last.threads)))
	case sys.err != "":
		lines = append(lines, sh.st.Warn.Render("process: "+sys.err))
	case sh.ended:
		lines = append(lines, sh.st.Dim.Render("the run has ended: recorded values only"))
	default:
		lines = append(lines, sh.st.Dim.Render(fmt.Sprintf("live: process %d, first sample in %s", p.pid, sysInterval)))
	}
	lines = append(lines, p.recorded(row)...)
	var out []string
	for _, l := range lines {
		out = append(out, wrapRow(l, w)...)
	}
	if charts := p.drawSysCharts(w, h-len(out)); charts != "" {
		out = append(out, charts)
	}
	return look.Fit(strings.Join(out, "\n"), w, h)
}

// wrapRow wraps a line to w cells: a row ("key      value") with its value's later lines
// under the value, any other line (a note) at the left.
func wrapRow(l string, w int) []string {
	key, val, isRow := "", l, len(l) > rowKeyW && l[0] != ' ' && l[0] != '\x1b' && l[rowKeyW-1] == ' '
	if isRow {
		key, val = l[:rowKeyW], l[rowKeyW:]
	}
	out := look.Wrap(val, max(w-len(key), 8))
	for k := range out {
		if k == 0 {
			out[k] = key + out[k]
		} else {
			out[k] = strings.Repeat(" ", len(key)) + out[k]
		}
	}
	return out
}

// recorded is the lines the session gives: speed now and over the run, wall time, device
// and GPU share, the worker count.
func (p *systemPane) recorded(row func(k, v string) string) []string {
	sh := p.sh
	if !sh.hasRec {
		return []string{row("speed", "–")}
	}
	r := sh.rec
	speed := fmt.Sprintf("%s steps/s at step %d", look.Num(r.StepsPerS, 1), r.Step)
	if mean, ok := meanSpeed(sh.scalars, r, sh.pauses); ok {
		speed += " · " + look.Num(mean, 1) + " mean"
	}
	wall := seconds(derived.ActiveWall(r.WallS, sh.pauses)) + " at step " + fmt.Sprint(r.Step)
	if paused := derived.PausedS(r.WallS, sh.pauses); paused > 0 {
		wall += ", " + seconds(paused) + " paused left out"
	}
	out := []string{row("speed", speed), row("wall", wall)}
	dev := deviceLine(sh.meta)
	if r.GPUShare > 0 {
		dev += fmt.Sprintf(" · GPU %.0f%% of step time", 100*r.GPUShare)
	}
	out = append(out, row("device", dev))
	if n := sh.cfg.Workers; n > 0 {
		out = append(out, row("workers", fmt.Sprint(n)+" goroutines for kernels"))
	}
	return out
}

// meanSpeed is the steps per second from the first record to r: steps done over the wall
// time they took without the pauses ps; false without a record before r or no time
// between them.
func meanSpeed(recs []sessions.Record, r sessions.Record, ps []derived.Pause) (float64, bool) {
	if len(recs) == 0 || recs[0].Step >= r.Step {
		return 0, false
	}
	a := recs[0]
	dt := derived.ActiveWall(r.WallS, ps) - derived.ActiveWall(a.WallS, ps)
	if dt <= 0 {
		return 0, false
	}
	return float64(r.Step-a.Step) / dt, true
}

// seconds writes a time in seconds rounded to the second: "1m12s".
func seconds(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// cores is the number of CPU cores of this machine (a live run's process runs on it).
func (s *shared) cores() int {
	if s.ncpu > 0 {
		return s.ncpu
	}
	return runtime.NumCPU()
}

// bytesText writes a size in MB or GB.
func bytesText(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.2f GB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
}
