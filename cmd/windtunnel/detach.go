package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"windtunnel/lab/launch"

	"github.com/spf13/pflag"
)

// runDetached starts the run described by the flags in the background (launch.StartBackground):
// this program again (os.Executable) with the same flags, --headless instead of --detach
// and the session path made absolute, its output in <session>.log. It waits until the run
// answers on its control socket, then prints its pid, session, log and how to attach. If
// the run dies first, the error carries the log's last lines.
func runDetached(ctx context.Context, f *runFlags, fs *pflag.FlagSet, stdout io.Writer) error {
	var session string
	if f.resume == "" {
		cfg, err := f.config() // bad flags fail here, before anything starts
		if err != nil {
			return err
		}
		session = f.out
		if session == "" {
			session = launch.DefaultPath(cfg, time.Now())
		} else if err := checkOutDir(session); err != nil {
			return err
		}
		if _, err := os.Stat(session); err == nil {
			return usagef("--out %s: the file exists (continue it with --resume)", session)
		}
	} else {
		if err := checkResumeFlags(fs); err != nil {
			return err
		}
		session = f.resume
		if _, err := os.Stat(session); err != nil {
			return usagef("--resume: %v", err)
		}
	}
	session, err := filepath.Abs(session)
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	ctx, cancel := signalContext(ctx)
	defer cancel()
	args := append([]string{"run"}, detachedArgs(fs, session, f.resume != "")...)
	bg, err := launch.StartBackground(ctx, exe, args, session)
	if err != nil {
		return fmt.Errorf("run --detach: %w", err)
	}
	pid, logPath, socket := bg.Pid, bg.Log, bg.Socket
	name := strings.TrimSuffix(filepath.Base(session), filepath.Ext(session))
	fmt.Fprintf(stdout, "windtunnel: running in the background, pid %d\n", pid)
	fmt.Fprintf(stdout, "  session  %s\n  log      %s\n  socket   %s\n", session, logPath, socket)
	fmt.Fprintf(stdout, "  attach   windtunnel attach %s\n", name)
	fmt.Fprintf(stdout, "  stop     stop from the attached dashboard, or kill %d (a clean stop: final evaluation and checkpoint)\n", pid)
	return nil
}

// detachedArgs are the flags the user set, but --detach, --headless and --out, then
// --headless, and the session: --out for a new run, --resume (absolute) for a resumed one.
func detachedArgs(fs *pflag.FlagSet, session string, resume bool) []string {
	var args []string
	fs.Visit(func(fl *pflag.Flag) {
		switch fl.Name {
		case "detach", "headless", "out", "resume":
			return
		}
		v := fl.Value.String()
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			v = strings.Join(sv.GetSlice(), ",")
		}
		args = append(args, "--"+fl.Name+"="+v)
	})
	args = append(args, "--headless")
	if resume {
		return append(args, "--resume="+session)
	}
	return append(args, "--out="+session)
}
