#!/usr/bin/env bash
# Drives the real windtunnel binary in tmux through the runs that outlive their terminal:
# run --detach, ls, attach (toggle a head, detach with q d, the shell is back), attach again
# (the toggle is still shown), serve over SSH to a real OpenSSH client (an operator key sees
# the dashboard, an unknown key is refused), and a stop sent by the operator over SSH (ls
# says stopped, the session is one file), and a run started with its dashboard, detached with
# q d, that outlives its terminal (tmux kill-session) and finishes (ls says done). Asserts on
# captured screens and command output; exits non-zero (printing the screen, the run's log and
# serve's output) on the first failure.
# Needs tmux, ssh and ssh-keygen (openssh-client). Everything it writes lives in a temporary
# folder (XDG_RUNTIME_DIR, XDG_CACHE_HOME and XDG_CONFIG_HOME point there).
# Usage: scripts/detach-smoke.sh [path/to/windtunnel]   (builds one when not given)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
sock="wt-detach-$$"
tm() { tmux -L "$sock" "$@"; }
run_pid="" # the detached trainer (its own session: tmux does not end it)
serve_pid=""
# stop PID: SIGTERM, then SIGKILL after 15 s; waits until it is gone.
stop() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 150; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	sleep 0.2
}
cleanup() {
	tm kill-server 2>/dev/null || true
	[[ -n "$serve_pid" ]] && stop "$serve_pid"
	[[ -n "$run_pid" ]] && stop "$run_pid"
	rm -rf "$work"
}
trap cleanup EXIT
bin=${1:-}
if [[ -z "$bin" ]]; then
	bin="$work/windtunnel"
	(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/windtunnel)
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
for tool in tmux ssh ssh-keygen; do
	command -v "$tool" >/dev/null || { echo "detach-smoke: FAIL: $tool not found (tmux, openssh-client)" >&2; exit 1; }
done

cd "$work"
mkdir -p runtime cache config runs
chmod 700 runtime
export XDG_RUNTIME_DIR="$work/runtime" XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
unset SSH_AUTH_SOCK # the client offers only the key it is given
session="$work/runs/detach.wtlab"

pane=viewer # the tmux session that screen, wait_for and fail look at
screen() { tm capture-pane -p -t "$pane"; }
fail() {
	echo "detach-smoke: FAIL: $*" >&2
	echo "--- screen of $pane:" >&2
	screen >&2 || true
	if [[ -f "$session.log" ]]; then
		echo "--- last lines of $session.log:" >&2
		tail -n 15 "$session.log" >&2
	fi
	if [[ -f serve.out ]]; then
		echo "--- serve output:" >&2
		cat serve.out >&2
	fi
	exit 1
}
# wait_for PATTERN SECONDS: poll the screen until grep -E matches.
wait_for() {
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do
		if screen 2>/dev/null | grep -Eq -- "$1"; then return 0; fi
		sleep 0.1
	done
	fail "no /$1/ on screen after $2 s"
}
# wait_gone PATTERN SECONDS: poll the screen until grep -E no longer matches.
wait_gone() {
	local deadline=$((SECONDS + $2))
	while ((SECONDS < deadline)); do
		if ! screen 2>/dev/null | grep -Eq -- "$1"; then return 0; fi
		sleep 0.1
	done
	fail "/$1/ still on screen after $2 s"
}
ok() { echo "detach-smoke: ok: $*"; }
# type TEXT: types a command line into the pane's shell.
type_line() { tm send-keys -t "$pane" -l "$1" && tm send-keys -t "$pane" Enter; }
# shell NAME: a tmux session running an interactive shell with a known prompt, 80x24.
shell() {
	tm new-session -d -s "$1" -x 80 -y 24 "env PS1='smoke\$ ' HISTFILE=/dev/null bash --norc --noprofile"
}
# focus_ablation: tab until the Ablation pane has focus (up to three rounds of the panes: a
# loaded machine can draw a press late, so one may pass the pane unseen and the next round
# comes back to it).
focus_ablation() {
	local i
	for ((i = 0; i < 30; i++)); do
		screen | grep -q '\[Ablation\]' && return 0
		tm send-keys -t "$pane" Tab
		sleep 0.4
	done
	fail "tab never focused the Ablation pane"
}
# ls_json: the runs as ls --json lists them.
ls_json() { "$bin" ls --json --dir runs 2>&1; }

# (a) A tiny run with steps enough to outlive this script, in the background.
tiny=(--task bijection --v 4 --layers 1 --heads 1 --width 8 --batch 16 --probe 16 --eval-every 200
	--probe-every 2000 --checkpoint-every 0 --workers 1 --steps 10000000)
"$bin" run --detach --out "$session" "${tiny[@]}" >detach.out 2>&1 || fail "run --detach: $(cat detach.out)"
run_pid=$(sed -n 's/.*running in the background, pid \([0-9][0-9]*\).*/\1/p' detach.out)
[[ -n "$run_pid" ]] || fail "run --detach printed no pid: $(cat detach.out)"
kill -0 "$run_pid" 2>/dev/null || fail "run --detach: pid $run_pid is not running"
grep -q 'windtunnel attach detach' detach.out || fail "run --detach did not say how to attach: $(cat detach.out)"
"$bin" ls --dir runs >ls.txt 2>&1 || fail "ls: $(cat ls.txt)"
grep -Eq "^running +bijection +transformer .* $run_pid +runs/detach.wtlab" ls.txt || fail "ls does not list the run as running: $(cat ls.txt)"
ok "run --detach started pid $run_pid; ls lists it running"

# (b) Attach from a shell, toggle head L0H0, detach with q d: the run goes on, the shell is back.
shell viewer
wait_for '^smoke\$' 10
type_line "$bin attach detach; echo ATTACH1 \$?"
wait_for 'LIVE training' 30
wait_for '^step +[0-9]+ \[' 30
ok "attach: the live dashboard is up"
focus_ablation
tm send-keys -t "$pane" ' '
wait_for 'off: L0H0@[0-9]+' 15
wait_for 'ablated eval @[0-9]+ without L0H0' 30
ok "head L0H0 toggled through the control socket, ablated evaluation shown"
tm send-keys -t "$pane" q
wait_for 'quit: detach or stop the run\?' 10
tm send-keys -t "$pane" Escape
wait_gone 'quit: detach or stop the run\?' 10
screen | grep -q 'LIVE training' || fail "cancel (esc) did not go back to the dashboard"
tm send-keys -t "$pane" q
wait_for 'quit: detach or stop the run\?' 10
tm send-keys -t "$pane" d
wait_for 'ATTACH1 0' 20
screen | grep -q "windtunnel: detached; detach goes on (pid $run_pid)" || fail "attach did not say the run goes on"
type_line 'echo shell-$((6 * 7))'
wait_for '^shell-42' 10
ok "q opened the dialog, esc cancelled it, d detached; the shell is back"
kill -0 "$run_pid" 2>/dev/null || fail "the run (pid $run_pid) ended after detach"
ls_json >ls.json || fail "ls --json: $(cat ls.json)"
grep -q '"state": "running"' ls.json && grep -q "\"pid\": $run_pid," ls.json ||
	fail "ls --json does not show the run running: $(cat ls.json)"
ok "the run goes on after detach (ls --json: running, pid $run_pid)"

# (c) Attach again: the history comes from the session, the head is still off.
tm send-keys -t "$pane" C-l
type_line "$bin attach detach; echo ATTACH2 \$?"
wait_for 'LIVE training' 30
focus_ablation
wait_for 'off: L0H0@[0-9]+' 15
ok "attached again: the earlier toggle (L0H0 off) is shown"
tm send-keys -t "$pane" q
wait_for 'quit: detach or stop the run\?' 10
tm send-keys -t "$pane" d
wait_for 'ATTACH2 0' 20
ok "detached again"

# (d) serve on a free port of 127.0.0.1; an operator key and a stranger's key.
ssh-keygen -q -t ed25519 -N '' -C operator@smoke -f operator_key
ssh-keygen -q -t ed25519 -N '' -C stranger@smoke -f stranger_key
ssh-keygen -q -t ed25519 -N '' -C host@smoke -f host_key
printf 'windtunnel-operator %s\n' "$(cat operator_key.pub)" >authorized_keys
op_fp=$(ssh-keygen -lf operator_key.pub | awk '{print $2}')
: >serve.out # exists before serve writes to it: the loop below reads it at once
"$bin" serve --addr 127.0.0.1:0 --authorized-keys authorized_keys --host-key "$work/host_key" --runs runs >serve.out 2>&1 &
serve_pid=$!
port=""
for ((i = 0; i < 300; i++)); do
	port=$(sed -n 's/^windtunnel serve: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' serve.out)
	[[ -n "$port" ]] && break
	kill -0 "$serve_pid" 2>/dev/null || fail "serve exited"
	sleep 0.1
done
[[ -n "$port" ]] || fail "serve did not say where it listens within 30 s"
ok "serve listening on 127.0.0.1:$port"
ssh_opts=(-p "$port" -F /dev/null -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
	-o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=20 -o LogLevel=ERROR)
pane=ssh
shell ssh
wait_for '^smoke\$' 10
type_line "ssh -tt -i operator_key ${ssh_opts[*]} 127.0.0.1; echo SSHEXIT \$?"
wait_for 'LIVE training' 30
wait_for '^step +[0-9]+ \[' 30
grep -q "operator $op_fp (operator@smoke) connected" serve.out || fail "serve did not log the operator's connection"
ok "ssh with the operator key: the live dashboard"
rc=0
timeout 30 ssh -tt -i stranger_key "${ssh_opts[@]}" 127.0.0.1 </dev/null >stranger.out 2>&1 || rc=$?
((rc != 0)) || fail "ssh with an unknown key exited 0: $(cat stranger.out)"
((rc != 124)) || fail "ssh with an unknown key hung: $(cat stranger.out)"
grep -q 'Permission denied' stranger.out || fail "ssh with an unknown key (exit $rc) did not say Permission denied: $(cat stranger.out)"
grep -q 'refused key' serve.out || fail "serve did not log the refused key"
ok "ssh with an unknown key refused (exit $rc, Permission denied)"

# (e) The operator stops the run over SSH: q s.
tm send-keys -t "$pane" q
wait_for 'quit: detach or stop the run\?' 10
tm send-keys -t "$pane" s
wait_for 'SSHEXIT 0' 60
for ((i = 0; i < 600; i++)); do
	kill -0 "$run_pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$run_pid" 2>/dev/null && fail "the run (pid $run_pid) still runs 60 s after the operator stopped it"
run_pid=""
grep -q "stop by ssh:$op_fp" serve.out || fail "serve did not log the stop with the operator's fingerprint"
ok "the operator stopped the run over SSH (stop by ssh:$op_fp)"
stop "$serve_pid"
serve_pid=""
ls_json >ls.json || fail "ls --json: $(cat ls.json)"
grep -q '"state": "stopped"' ls.json || fail "ls --json does not say stopped: $(cat ls.json)"
grep -q '"pid"' ls.json && fail "ls --json still shows a live run: $(cat ls.json)"
leftover=$(ls runs/detach.wtlab-* 2>/dev/null || true)
[[ -z "$leftover" ]] || fail "the closed session is not one file: $leftover"
"$bin" info runs/detach.wtlab >info.txt 2>&1 || fail "info: $(cat info.txt)"
grep -q 'state stopped' info.txt || fail "info: $(cat info.txt)"
grep -Eq '(^|[^0-9])([2-9]|[1-9][0-9]+) operator events' info.txt || fail "toggle and stop not recorded: $(cat info.txt)"
[[ -z "$(ls runtime/windtunnel 2>/dev/null)" ]] || fail "control socket left behind: $(ls runtime/windtunnel)"
ok "ls --json: stopped; the session is one file with the toggle and the stop; no socket left"

# (f) A run started in the foreground with its dashboard, paused (p), detached (q d): the dialog
# and the message say it stays paused; closing its terminal (tmux kill-session: SIGHUP, as a
# dropped SSH connection) does not end it; attach resumes it (p) and it trains to its end; ls
# says done.
fg_session=runs/fg.wtlab
pane=fg
shell fg
wait_for '^smoke\$' 10
type_line "$bin run --out $fg_session ${tiny[*]:0:${#tiny[@]}-1} 60000"
wait_for 'LIVE training' 30
tm send-keys -t "$pane" p
wait_for 'LIVE paused' 15
tm send-keys -t "$pane" q
wait_for 'quit: resume, detach or stop the run\?' 10
wait_for 'The run is paused at step [0-9]+ of 60000\.' 10
wait_for '\[r\] resume and detach' 10
tm send-keys -t "$pane" d
wait_for 'detached: run stays paused at step [0-9]+' 20
fg_pid=$(screen | tr -d '\n' | sed -n 's/.*stays paused at step [0-9]*.* in this process (pid \([0-9][0-9]*\)).*/\1/p')
[[ -n "$fg_pid" ]] || fail "the detached run did not say its pid"
run_pid=$fg_pid # stopped by cleanup should the script fail
tm kill-session -t fg
sleep 2
kill -0 "$fg_pid" 2>/dev/null || fail "the detached run (pid $fg_pid) ended when its terminal closed: $(tail -n 5 $fg_session.log)"
ls_json >ls.json || fail "ls --json: $(cat ls.json)"
grep -q "\"pid\": $fg_pid," ls.json || fail "ls --json does not show the detached run: $(cat ls.json)"
ok "paused, q d (the dialog and the message say it stays paused), then the terminal closed: the run (pid $fg_pid) goes on, ls lists it"
pane=viewer
type_line "$bin attach fg; echo ATTACH3 \$?"
wait_for 'LIVE paused' 30
tm send-keys -t "$pane" p
wait_for 'LIVE training' 15
tm send-keys -t "$pane" q
wait_for 'quit: detach or stop the run\?' 10
tm send-keys -t "$pane" d
wait_for 'ATTACH3 0' 20
for ((i = 0; i < 1800; i++)); do
	kill -0 "$fg_pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$fg_pid" 2>/dev/null && fail "the detached run (pid $fg_pid) still runs 180 s after it was resumed"
run_pid=""
ls_json >ls.json || fail "ls --json: $(cat ls.json)"
grep -q '"state": "done"' ls.json || fail "ls --json does not say done: $(cat ls.json)"
grep -q 'windtunnel: done after 60000 steps' "$fg_session.log" || fail "the log has no summary: $(tail -n 5 $fg_session.log)"
ok "resumed through attach, the run finished; ls --json: done; its summary in $fg_session.log"
echo "detach-smoke: PASS"
