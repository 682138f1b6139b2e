#!/usr/bin/env bash
# Drives the real windtunnel binary in tmux: start a run in the dashboard, wait for the
# first chart, toggle a head, pause and resume, quit; then replay the session and scrub it.
# Asserts on captured screens; exits non-zero (printing the screen) on the first failure.
# Usage: scripts/tui-smoke.sh [path/to/windtunnel]   (builds one when not given)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
sock="wt-smoke-$$"
tm() { tmux -L "$sock" "$@"; }
cleanup() { tm kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
bin=${1:-}
if [[ -z "$bin" ]]; then
	bin="$work/windtunnel"
	(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/windtunnel)
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
screen() { tm capture-pane -p -t smoke; }
fail() {
	echo "tui-smoke: FAIL: $*" >&2
	screen >&2 || true
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
ok() { echo "tui-smoke: ok: $*"; }

cd "$work"
tiny=(--v 8 --layers 2 --heads 2 --width 32 --batch 32 --probe 64 --eval-every 20 --steps 200000)
tm new-session -d -s smoke -x 80 -y 24 "$bin run --out s.wtlab ${tiny[*]}; echo EXITED \$?; sleep 60"
wait_for 'LIVE training' 30
ok "dashboard up"
wait_for '^┃ *[0-9.]+│ *[•∘×]' 60
ok "first chart drawn"

# Ablation: tab until its pane has focus, toggle head L0H0, wait for the ablated evaluation.
for _ in 1 2 3 4; do
	screen | grep -q '\[Ablation\]' && break
	tm send-keys -t smoke Tab
	sleep 0.2
done
screen | grep -q '\[Ablation\]' || fail "tab never focused the Ablation pane"
tm send-keys -t smoke ' '
wait_for 'sent: L0H0 off' 10
wait_for 'ablated eval @[0-9]+ without L0H0' 20
wait_for 'vs [0-9.]+ +Δ [-+][0-9]' 5
ok "head toggled, ablated bit error shown"

tm send-keys -t smoke p
wait_for 'paused' 10
step1=$(screen | sed -n 2p)
sleep 1.5
[[ "$(screen | sed -n 2p)" == "$step1" ]] || fail "steps advanced while paused"
tm send-keys -t smoke p
wait_for 'LIVE training' 10
ok "paused and resumed"

tm send-keys -t smoke q
wait_for 'detach' 10
tm send-keys -t smoke s
wait_for 'EXITED 0' 60
ok "q asked detach/stop; s stopped the run cleanly"
"$bin" info s.wtlab >info.txt || fail "info after quit: $(cat info.txt)"
grep -Eq '[3-9] operator events|[1-9][0-9]+ operator events' info.txt || fail "events not recorded: $(cat info.txt)"
grep -q 'state stopped' info.txt || fail "final state: $(cat info.txt)"
ok "session closed with the head toggle, pause and resume recorded"

tm kill-session -t smoke
tm new-session -d -s smoke -x 80 -y 24 "$bin replay s.wtlab; echo EXITED \$?; sleep 60"
wait_for 'REPLAY' 30
tm send-keys -t smoke g 4 0 Enter
wait_for '^step +40 ' 10
tm send-keys -t smoke Home
wait_for '^step +1 ' 10
tm send-keys -t smoke End
wait_for 'following|end' 10
ok "replay scrubbed (g 40, home, end)"
tm send-keys -t smoke q
wait_for 'EXITED 0' 20
ok "replay quit"

# The dashboard benchmark draws on the real terminal during its "on" window.
tm kill-session -t smoke
tm new-session -d -s smoke -x 160 -y 48 "$bin bench --dashboard --windows 2 --window 2s --settle 300ms; echo EXITED \$?; sleep 60"
wait_for 'state +training' 30
ok "bench --dashboard drew the dashboard on the terminal"
wait_for 'EXITED 0' 60
screen | grep -q 'median pair ratio' || fail "bench --dashboard printed no ratio"
screen | grep -q 'drawing to this terminal' || fail "bench --dashboard did not draw on the terminal"
ok "bench --dashboard measured"
echo "tui-smoke: PASS"
