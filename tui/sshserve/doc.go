// Package sshserve shows the windtunnel dashboard over SSH (`windtunnel serve`), built on
// charmbracelet/wish and its bubbletea middleware. Every connection gets its own dashboard
// program, drawn at its own terminal size (window changes resize it; at most
// MaxWidth×MaxHeight, so that no viewer can make the server draw and hold huge frames) and
// in its own colour profile (a lipgloss renderer per session, from the terminal type and
// environment the client sent; the client's terminal is never queried).
//
// Runs come from a Source (IndexSource, windtunnel serve's: the live runs and recent
// sessions of sessions/index, a live run reached through its control socket), so the
// dashboard side knows nothing of how a live run is reached: with
// one live run a viewer goes straight to its dashboard, with several a picker lists them,
// with none it lists the recent runs to replay read-only; the runs of a sweep's or a
// compare's folder are listed together under the folder's name (Run.Group, from
// runpicker.Group), each with its name and tags (Run.Label). A run is opened as the run
// picker of tui/runpicker opens one (runpicker.Open). A dashboard picked from the list
// is embedded in the picker (tui.Options.Embedded): leaving it comes back to the list.
//
// Admission: public keys only, those listed in an OpenSSH authorized_keys file (re-read
// when it changes). A key whose options field holds OperatorOption ("windtunnel-operator",
// bare or ="true"; ="false" or a value it does not understand leaves the key read-only)
// may operate a live run (pause, stop, toggle heads); every event it sends carries
// Event.By = "ssh:" + its SHA256 fingerprint, so the session records who sent it (a run
// reached through its control socket records it after the socket client's own identity;
// see relay). Other keys
// watch read-only: their dashboard (tui.Options.ReadOnly) does not offer the keys that act
// on the run, and their sends would fail with ErrNotOperator. Lines with options the server cannot honour (from=, command=, cert-authority, ...)
// are skipped rather than admitted without their restriction.
//
// Safe defaults: no password or keyboard-interactive authentication, no commands or
// subsystems (a command gets a message and exit status 1), no port or X11 forwarding (an
// agent request is acknowledged by the SSH library, but no agent channel is ever opened), a
// terminal required; connections idle for Config.IdleTimeout are closed, and session
// channels and sessions are bounded per key (Config.MaxSessionsPerKey) and in all
// (Config.MaxSessions), each channel's requests in number and size, and a connection with
// too many channel opens rejected is closed (channels.go), so no admitted key can grow the
// server. Connections not yet authenticated are bounded apart (Config.MaxStartups,
// MaxStartupsPerSource, all of loopback one source) and closed after
// Config.LoginGraceTime, so they cannot take the authenticated ones' places; one over
// those bounds is never refused: it takes the place of the least advanced that has been
// logging in for a few seconds, or waits its turn (conns.go), so connections that never
// log in cannot keep a viewer out either. What strangers can make it log comes at most
// once per kind every few seconds (ratelog.go).
// HostKey loads the server's key or generates one (ed25519, mode 0600).
//
// Files: server.go (Config, Server, the session gate), conns.go (the connection gates
// before and after authentication), channels.go (session channels and their requests),
// slots.go (what each key holds), ratelog.go (the rate-limited log), keys.go (authorized
// keys),
// hostkey.go (host key, authorized-keys file and default paths), window.go (the size bound), session.go (one viewer: its feed, renderer and
// program), picker.go (the run picker in front of the dashboard), source.go (IndexSource),
// banner.go (what serve prints once it listens: Server.WriteBanner).
package sshserve
