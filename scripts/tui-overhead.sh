#!/usr/bin/env bash
# Measures what the dashboard costs the trainer: the quick bijection preset for STEPS steps,
# headless and in the dashboard (both in tmux at 160x48; a key every 0.5 s to the
# dashboard; the harness captures and greps the screen and sends the key in both modes, so its
# own cost cancels), alternating ROUNDS times; prints the trainer's ms/step for each pair, the
# median of the per-pair ratios (this machine's speed drifts by ±15% between minutes, so
# only paired ratios mean anything), and the dashboard's logged frame rate and
# key-to-screen latency.  Usage: scripts/tui-overhead.sh [STEPS] [ROUNDS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
steps=${1:-600}
rounds=${2:-2}
work=$(mktemp -d)
sock="wt-overhead-$$"
tm() { tmux -L "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
bin="$work/windtunnel"
(cd "$here" && CGO_ENABLED=0 go build -o "$bin" ./cmd/windtunnel)
cd "$work"
# ms/step of the training records (wall time between the first and last training record).
msstep() {
	"$bin" export "$1" --format csv | awk -F, 'NR>1 && $7=="training" {if (!s) {s=$1; w=$2}; e=$1; x=$2} END {printf "%.2f", 1000*(x-w)/(e-s)}'
}
head_ms=() tui_ms=()
for r in $(seq "$rounds"); do
	tm new-session -d -s h -x 160 -y 48 "$bin run --headless --steps $steps --out h$r.wtlab >/dev/null 2>&1; touch h$r.done"
	# The harness does the same work in both modes (a screen capture, a grep and a key every
	# 0.5 s), so that only the dashboard differs.
	until [[ -e "h$r.done" ]]; do
		tm capture-pane -p -t h 2>/dev/null | grep -q 'ended\|done' || true
		tm send-keys -t h Tab 2>/dev/null || true
		sleep 0.5
	done
	head_ms+=("$(msstep "h$r.wtlab")")
	tm new-session -d -s o -x 160 -y 48 "$bin run --steps $steps --out t$r.wtlab; sleep 30"
	until tm capture-pane -p -t o | grep -q 'ended\|done'; do
		tm send-keys -t o Tab
		sleep 0.5
	done
	tm send-keys -t o q
	sleep 1
	tm kill-session -t o || true
	tui_ms+=("$(msstep "t$r.wtlab")")
	echo "round $r: headless ${head_ms[-1]} ms/step, dashboard ${tui_ms[-1]} ms/step"
done
printf '%s\n' "${head_ms[@]}" >h.txt
printf '%s\n' "${tui_ms[@]}" >t.txt
paste h.txt t.txt | awk '{h+=$1; t+=$2; print $2/$1}' | sort -g >ratios.txt
awk 'FNR==NR {h+=$1; n++; next} {t+=$1} END {printf "mean: headless %.2f ms/step, dashboard %.2f ms/step, ratio of means %.3f\n", h/n, t/n, t/h}' h.txt t.txt
awk '{r[NR]=$1} END {m = NR%2 ? r[(NR+1)/2] : (r[NR/2]+r[NR/2+1])/2; printf "median per-pair dashboard/headless = %.3f (min %.3f, max %.3f, %d pairs)\n", m, r[1], r[NR], NR}' ratios.txt
grep -h 'frames/s' t*.wtlab.log | tail -3
grep -h 'key to screen' t*.wtlab.log | tail -2
