package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windtunnel/lab/launch"
)

// TestHeadlessSummaryOnTerminal (issue 44 item 10): `run --headless` with stdout on a
// terminal ends with a few lines for a person — the final evaluation, the verdict and the
// session — instead of the multi-kilobyte JSON line that pushed the verdict off the screen;
// with --json (which also keeps the dashboard away) the JSON line is printed there too.
func TestHeadlessSummaryOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two short runs")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		flag string
	}{{"text", "--headless"}, {"json", "--json"}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name+".wtlab")
			args := append([]string{"run", c.flag, "--steps", "100", "--out", path}, tinyRun...)
			d := startDashboard(t, path, false, args)
			select {
			case <-d.done:
			case <-time.After(3 * time.Minute):
				t.Fatal("the run did not end within 3 minutes")
			}
			if d.err != nil {
				t.Fatalf("exit: %v\n%s", d.err, d.scr.String())
			}
			time.Sleep(200 * time.Millisecond) // the last bytes through the terminal
			out := strings.ReplaceAll(d.scr.String(), "\r\n", "\n")
			if strings.Contains(out, "\x1b[?1049h") {
				t.Fatalf("%s opened the dashboard", c.flag)
			}
			// Everything after the progress line: the exit lines and the summary.
			end := out[strings.LastIndex(out, "windtunnel: done after"):]
			jsonLine := ""
			for _, l := range strings.Split(end, "\n") {
				if strings.HasPrefix(l, "{") {
					jsonLine = l
				}
			}
			switch c.name {
			case "text":
				if jsonLine != "" || len(end) > 1200 || strings.Count(end, "\n") > 8 {
					t.Errorf("the end of a run on a terminal is %d bytes, %d lines:\n%s", len(end), strings.Count(end, "\n"), end)
				}
				for _, want := range []string{"\nrun       bijection transformer, 26,016 parameters: done after 100 steps in ",
					"\nfinal     bit error (a) ", "\nverdict   ", "\nsession   " + path + " (windtunnel info, replay, export; run --json"} {
					if !strings.Contains(end, want) {
						t.Errorf("the summary lacks %q:\n%s", want, end)
					}
				}
			case "json":
				var s launch.Summary
				if err := json.Unmarshal([]byte(jsonLine), &s); err != nil || s.Session != path || s.Steps != 100 || s.Verdict == nil {
					t.Errorf("--json on a terminal: %v, %+v\n%s", err, s, end)
				}
			}
		})
	}
}
