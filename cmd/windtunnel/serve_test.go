package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"windtunnel/tui/sshserve"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
)

// TestServeSource: serve's Source lists the live runs of the socket folder first (reached
// through their control sockets, so an operator's event reaches the trainer with its By)
// and then the recorded sessions of --runs (the live run's own file not repeated),
// replayed read-only.
func TestServeSource(t *testing.T) {
	dir := t.TempDir()
	runsDir, sockets := filepath.Join(dir, "runs"), filepath.Join(dir, "sock")
	meta := sessions.Meta{Task: "hmm", Model: "mlp", Layers: 2, Steps: 50, Created: time.Now()}
	old, err := sessions.Create(filepath.Join(runsDir, "old.wtlab"), meta, sessions.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old.Record(sessions.Record{Step: 50, State: sessions.Done})
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	session := filepath.Join(runsDir, "live.wtlab")
	meta = sessions.Meta{Task: "bijection", Model: "transformer", Layers: 2, Heads: 2, Steps: 100, Created: time.Now()}
	w, err := sessions.Create(session, meta, sessions.WriterOptions{Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	meta.Path = session
	got := make(chan sessions.Event, 4)
	live := sessions.NewLive(meta, sessions.ControlFunc(func(e sessions.Event) error { got <- e; return nil }), w)
	for s := 1; s <= 5; s++ {
		live.Record(sessions.Record{Step: s, State: sessions.Training})
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	srv, err := relay.Start(live, relay.SocketPath(sockets, session), relay.ServerOptions{Session: session})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src := sshserve.IndexSource{Sockets: sockets, Dir: runsDir, Log: log.New(io.Discard, "", 0)}
	runs, err := src.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || !runs[0].Live || runs[0].Name != "live" || runs[0].Step != 5 || runs[0].Socket == "" ||
		runs[1].Live || runs[1].Name != "old" || runs[1].Task != "hmm" || runs[1].Step != 50 {
		t.Fatalf("runs %+v", runs)
	}

	feed, release, err := src.Open(ctx, runs[0], "ssh:SHA256:op", true)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if !feed.Live() {
		t.Error("the live run's feed is not live")
	}
	if err := feed.Send(sessions.Event{Kind: sessions.EventHead, Layer: 1, Head: 0, By: "ssh:SHA256:op"}); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-got:
		// serve is a local client of the run's socket: the run records it as the kernel
		// knows it, for the key it names.
		if want := fmt.Sprintf("local:uid=%d,pid=%d for ssh:SHA256:op", os.Getuid(), os.Getpid()); e.By != want || e.Kind != sessions.EventHead || e.Layer != 1 {
			t.Errorf("the trainer got %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the operator's event never reached the trainer")
	}

	replay, release2, err := src.Open(ctx, runs[1], "ssh:SHA256:op", true)
	if err != nil {
		t.Fatal(err)
	}
	defer release2()
	if replay.Live() || !errors.Is(replay.Send(sessions.Event{Kind: sessions.EventPause}), sessions.ErrReadOnly) {
		t.Error("a finished session is not a read-only replay")
	}
}

// TestServeFlags: bad command lines are usage errors; a missing authorized-keys or
// --host-key file is an error naming it.
func TestServeFlags(t *testing.T) {
	dir := t.TempDir()
	keys := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(keys, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// It listens on this machine only unless told otherwise.
	if def := newServeCmd(io.Discard, io.Discard).Flags().Lookup("addr").DefValue; def != "127.0.0.1:2222" {
		t.Errorf("--addr defaults to %q, want 127.0.0.1:2222", def)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"serve", "extra"}, 2, "no arguments"},
		{[]string{"serve", "--addr", "2222"}, 2, "--addr"},
		{[]string{"serve", "--login-grace-time", "0s"}, 2, "--login-grace-time"},
		{[]string{"serve", "--max-startups", "0"}, 2, "--max-startups"},
		{[]string{"serve", "--authorized-keys", filepath.Join(dir, "nope"), "--host-key", filepath.Join(dir, "hk")}, 1, "no authorized keys"},
		{[]string{"serve", "--authorized-keys", keys, "--host-key", dir}, 1, "is a directory"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming %q", c.args, code, errs, c.code, c.want)
		}
	}
}
