package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"windtunnel/sessions"
	"windtunnel/sessions/relay"
	"windtunnel/tui/sshserve"
)

func newServeCmd(stdout, stderr io.Writer) *cobra.Command {
	var addr, keysPath, hostKeyPath, runsDir string
	var grace time.Duration
	var startups int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the dashboard over SSH to the keys of an authorized-keys file (live runs, recent sessions)",
		Long: "serve shows the dashboard to colleagues over SSH: each connection picks a live run of this user\n" +
			"(or, with none live, a recent session of --runs to replay) and gets its own dashboard at its own\n" +
			"size and colours. Only the public keys in the authorized-keys file (OpenSSH format) are admitted;\n" +
			"a key whose options field is " + sshserve.OperatorOption + " may pause, stop and toggle heads,\n" +
			"recorded in the session with its fingerprint; the others watch read-only. No passwords, commands\n" +
			"or forwarding.\n\n" +
			"It listens on 127.0.0.1:2222, this machine only (reach it with ssh -L); --addr :2222 opens it to\n" +
			"every interface. A connection must log in within --login-grace-time, and at most --max-startups\n" +
			"(half of them from one address; all of loopback counts as one) may be logging in at once. One more\n" +
			"takes the place of the least advanced that has been logging in for 3 s (silent ones first, one at\n" +
			"authentication last), or waits its turn (as many again may wait), so connections that never log in\n" +
			"cannot keep viewers out. Withstood with the defaults (measured with OpenSSH's client, 10 logins\n" +
			"beside silent, version-only and slow connections from 127.0.0.1-4): 60 such connections, every\n" +
			"login in at once; 300, every login in within 6 s; 600 (more than the " + strconv.Itoa(sshserve.DefaultMaxStartupsPerSrc+sshserve.DefaultMaxStartups) + " held and queued\n" +
			"from one address), 1 login in 10.\n" +
			"A key may hold " + strconv.Itoa(sshserve.DefaultMaxSessionsPerKey) + " session channels at once; its requests are bounded in number and size.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := net.SplitHostPort(addr); err != nil {
				return usagef("--addr %q: want host:port or :port (%v)", addr, err)
			}
			if grace <= 0 {
				return usagef("--login-grace-time %v: want a positive duration (20s)", grace)
			}
			if startups <= 0 {
				return usagef("--max-startups %d: want at least 1", startups)
			}
			keys, err := sshserve.AuthorizedKeysFile(keysPath)
			if err != nil {
				return err
			}
			host, created, hostPath, err := sshserve.HostKeyFile(hostKeyPath)
			if created {
				fmt.Fprintf(stdout, "generated host key %s\n", hostPath)
			}
			if err != nil {
				return err
			}
			sockets, err := relay.SocketDir()
			if err != nil {
				return err
			}
			logger := log.New(stderr, "", log.LstdFlags)
			srv, err := sshserve.New(sshserve.Config{Source: sshserve.IndexSource{Sockets: sockets, Dir: runsDir, Log: logger},
				AuthorizedKeys: keys, HostKey: host, Logger: logger, LoginGraceTime: grace, MaxStartups: startups,
				MaxStartupsPerSource: max(startups/2, 1)})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			srv.WriteBanner(stdout, ln.Addr(), keys)
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			go func() {
				<-ctx.Done()
				srv.Close()
			}()
			return srv.Serve(ln)
		},
	}
	flags := cmd.Flags()
	flags.StringVar(&addr, "addr", "127.0.0.1:2222", "address to listen on (127.0.0.1:2222 this machine only; :2222 every interface)")
	flags.DurationVar(&grace, "login-grace-time", sshserve.DefaultLoginGraceTime, "close a connection that has not logged in within this time")
	flags.IntVar(&startups, "max-startups", sshserve.DefaultMaxStartups, "most connections logging in at once, half of them from one address (one more replaces the least advanced there for 3 s, or waits its turn)")
	flags.StringVar(&keysPath, "authorized-keys", "", "OpenSSH authorized_keys file of the admitted keys; the option "+sshserve.OperatorOption+
		" marks operators (default $XDG_CONFIG_HOME/windtunnel/authorized_keys)")
	flags.StringVar(&hostKeyPath, "host-key", "", "the server's private key file, generated there on first start (default $XDG_CONFIG_HOME/windtunnel/ssh_host_ed25519_key)")
	flags.StringVar(&runsDir, "runs", sessions.RunsDir, "folder of session files offered for replay when no run is live")
	return cmd
}
