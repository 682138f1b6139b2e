// Package relay is the control socket of a running trainer and its clients: `windtunnel
// attach` and `ls` on the same machine, and serve for its SSH viewers.
//
// Every run (headless or dashboard) serves its sessions.Live on a unix socket in the user's
// runtime directory (SocketDir: $XDG_RUNTIME_DIR/windtunnel, else
// <user cache dir>/windtunnel/run), the directory 0700 and the socket 0600, named after the
// session (SocketPath) and recorded in the session's meta (sessions.Meta.Socket) while the
// run lasts. A connection from another user is refused: besides the file permissions, the
// server checks the peer's uid (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS).
//
// The protocol (version Protocol) is a stream of messages in both directions, each a 4-byte
// big-endian length followed by that many bytes of JSON (Message). The server speaks first:
// a hello (Hello: the run's meta, pid — the kernel's, not the claim: Dial — step, state,
// latest bit error). The client may then
// ask for the stream of what the run records after a step (subscribe: every record and
// operator event with Step > after, first those already recorded, then as they happen, and
// an end message when the run ends) and send operator events (send, answered by an ack with
// the same id), which the server hands to the Live's Control exactly as the local dashboard
// does; the trainer records them in the session. Their Event.By is the client as the kernel
// knows it (Peer.By: "local:uid=U,pid=P"), never what the client claims: a claim (serve
// names its SSH viewer's key) is kept after " for ", cleaned and cut. A client that only wants the hello (ls)
// closes the connection. Messages from a client are bounded by MaxRequest and those from the
// server by MaxMessage; every decoded message is treated as a session file's contents are
// (wire.go): its numbers bounded (sessions' Check methods) and its strings made safe to
// print (sessions.SafeText). A client that sends a malformed or oversized message is dropped, and
// one that does not read (a write times out after WriteTimeout) is dropped too. The trainer
// never waits for a client: each connection reads the Live's history on its own goroutine.
//
// Client is the client side (Dial, Probe), List finds the live runs of a socket directory
// and Select picks one by name; Feed is a sessions.Feed over a live run for the dashboard:
// the history from the session file (sessions.Reader), what follows from the socket.
package relay
