#!/usr/bin/env bash
# The one prepared command a lent NVIDIA GPU needs (issues 20 and 31), in two halves because
# the GPU machine has no Go toolchain and no network:
#   here:   scripts/gpu-check.sh build   builds into gpu/ (ignored by git, so carry it: the
#                                        device tool's carry ["gpu"]; about 24 MiB compressed, under 64 MiB):
#             windtunnel      the binary (CGO_ENABLED=0, stripped)
#             cuda.test       backends/cuda's tests (kernel parity and cuBLAS on the GPU)
#             accel.test      backends/accel's tests (catalogue contract, parity harness)
#             lab.test        lab's tests (20 paper steps on the GPU against the CPU)
#             torch_reference.py  the project's PyTorch reference (scripts/torch_reference.py;
#                             $TORCH_REFERENCE names another), timed by bench beside windtunnel
#             BUILD.txt       the commit, Go version and date of the build
#           the binaries gzip-compressed (NAME.gz: gpu/ and the tree under 64 MiB together);
#           run unpacks them
#   there:  scripts/gpu-check.sh run [STAGE...]   from the repository root with gpu/ carried
#                                        along (with Go on the GPU machine, `run` builds gpu/ itself)
# run does every check stage (or the STAGEs named) in order, each whatever the earlier ones
# gave, each under its own timeout, then, when no STAGE is named and parity passed, trains
# with the time left; all of it inside GPU_CHECK_DEADLINE_S (default 540 s) of the run's start,
# so that it fits one 10-minute device command:
#   device            30 s   nvidia-smi and `windtunnel device` (GPU, driver, cuBLAS, NVRTC, files)
#   kernels           90 s   every kernel of kernels.cu compiled by NVRTC against its Go version at
#                            the odd and the quick preset's sizes, over two small grids and the
#                            model's own grids, outputs NaN-filled, within accel.ParityTol; cuBLAS
#                            products on device pointers (cuda.test -test.run GPU); accel.test
#                            (catalogue contract, parity harness; its clang tests run here)
#   parity           150 s   20 paper steps (bijection V=20, L=6 H=6 d=192, batch 256) on cpu,
#                            cuda-gemm and cuda (the whole step resident) from one seed: every
#                            parameter within 1e-4 (lab.test TestResidentCUDAMatchesCPU)
#   baselines         30 s   Mamba, the LSTM and the per-position MLP (their products-only path on --device cuda): 20
#                            steps of the precision budget's recall (the laptop preset) on cuda
#                            and on cpu from one seed, the evaluation after them within 1e-4 bits
#                            (GPU_CHECK_BASELINES_DEVICE, _STEPS: another device, fewer steps)
#   speed-cuda       120 s   300 timed paper steps on --device cuda beside PyTorch eager on the
#                            same GPU (torch_reference.py --device cuda): ms a step, projected 50k
#   speed-cuda-gemm  120 s   40 timed paper steps on --device cuda-gemm, the same way
#   train     ≤ 480 s + 120  the paper bijection preset on --device cuda (50,000 steps planned, so
#                            the schedule is the preset's), stopped cleanly (SIGTERM: final
#                            evaluation and checkpoint) after GPU_CHECK_TRAIN_S (default 480 s) or
#                            what the deadline leaves, less 120 s; evaluated every 1,000 steps, a
#                            geometry snapshot every 10,000, one checkpoint (at the end).
#                            GPU_CHECK_TRAIN_EXTRA: run flags appended (a test trains a tiny model
#                            with --device host this way)
#   summary                  one table, last (summary.txt): the stages, parity, speed, and the
#                            paper run's bit errors (a) and (b) at each evaluation beside the
#                            authors' production run (0.086 (b) at 1k, 0.043 at 2k)
# What comes back from $OUT (default /tmp/gpu-check) stays within the device tool's limits
# (8 files, 16 MiB each): summary.txt; logs.tar.gz (stages.txt with each stage's command, exit
# status and seconds, and NAME.txt a stage's output; rewritten after every stage, so a killed
# command leaves the stages before it); paper.log (the run's log), paper-evals.csv (its
# evaluations) and paper.wtlab.gz (the session without its optimiser state, which is 4× the
# parameters and would not come back; split into paper.wtlab.gz.part-aa, -ab, … of 15 MiB when
# larger: `cat paper.wtlab.gz.part-* | gunzip > paper.wtlab`).
# WINDTUNNEL_BIN names the windtunnel binary (default gpu/windtunnel).
# Without a GPU every stage fails quickly, is logged as FAIL, and the next one runs.
set -uo pipefail
cd "$(dirname "$0")/.."

stages_all=(device kernels parity baselines speed-cuda speed-cuda-gemm)

build() {
	mkdir -p gpu || return 1
	local ld='-s -w' ok=0
	CGO_ENABLED=0 go build -ldflags="$ld" -o gpu/windtunnel ./cmd/windtunnel || ok=1
	CGO_ENABLED=0 go test -c -ldflags="$ld" -o gpu/cuda.test ./backends/cuda || ok=1
	CGO_ENABLED=0 go test -c -ldflags="$ld" -o gpu/accel.test ./backends/accel || ok=1
	CGO_ENABLED=0 go test -c -ldflags="$ld" -o gpu/lab.test ./lab || ok=1
	local ref=${TORCH_REFERENCE:-scripts/torch_reference.py}
	if install -m 0644 "$ref" gpu/torch_reference.py; then
		echo "PyTorch reference: $ref"
	else
		echo "gpu-check: cannot copy the PyTorch reference $ref" >&2
		rm -f gpu/torch_reference.py
		ok=1
	fi
	{
		echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
		go version
		echo "built $(date -u +%FT%TZ) on $(uname -srm)"
	} >gpu/BUILD.txt
	# Compressed, so that gpu/ and the working tree travel together under the device tool's
	# 64 MiB (the binaries alone are over 60 MB); run unpacks them (unpack).
	gzip -9 -f gpu/windtunnel gpu/cuda.test gpu/accel.test gpu/lab.test || ok=1
	ls -la gpu
	local kb tree
	kb=$(du -sk gpu | cut -f1)
	tree=$(git ls-files -z | xargs -0 du -ck 2>/dev/null | tail -n 1 | cut -f1)
	echo "gpu/: ${kb} KiB; with the tracked tree (${tree} KiB): $((kb + tree)) KiB"
	if [ $((kb + tree)) -gt $((60 * 1024)) ]; then
		echo "gpu-check: gpu/ and the tree are over the 60 MiB kept under the 64 MiB a device command may carry" >&2
		ok=1
	fi
	return $ok
}

# unpack NAME... restores the binaries named that build compressed (gpu/NAME.gz to gpu/NAME,
# executable), each only when it is missing or older than its .gz: a binary already unpacked
# is reused as it is.
unpack() {
	local n f
	for n in "$@"; do
		f=gpu/$n.gz
		[ -e "$f" ] || continue
		[ -x "${f%.gz}" ] && [ ! "$f" -nt "${f%.gz}" ] && continue
		gzip -d -c "$f" >"${f%.gz}" && chmod +x "${f%.gz}" || echo "gpu-check: cannot unpack $f" >&2
	done
}

# stage NAME TIMEOUT_S COMMAND...: runs COMMAND into $logs/NAME.txt under the timeout and
# records PASS or FAIL (exit status; 124 is the timeout) and the seconds it took.
stage() {
	local name=$1 limit=$2 t0=$SECONDS rc
	shift 2
	echo "== $name (timeout ${limit}s): $*" | tee -a "$logs/stages.txt"
	timeout -k 10 "$limit" "$@" >"$logs/$name.txt" 2>&1 </dev/null
	rc=$?
	if [ "$rc" = 0 ]; then
		status[$name]=PASS
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status[$name]="FAIL (timed out after ${limit}s)"
	else
		status[$name]="FAIL (exit $rc)"
	fi
	echo "   $name: ${status[$name]} in $((SECONDS - t0))s" | tee -a "$logs/stages.txt"
	tail -n 25 "$logs/$name.txt"
	pack_logs
}

# pack_logs writes every stage's log into $out/logs.tar.gz (one file back, however many stages).
pack_logs() {
	tar -czf "$out/logs.tar.gz.tmp" -C "$logs" . && mv "$out/logs.tar.gz.tmp" "$out/logs.tar.gz"
}

run_stage() {
	case $1 in
	device)
		stage device 30 bash -c 'cat gpu/BUILD.txt; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || echo "nvidia-smi failed"; nvidia-smi || true; "$0" device' "$wt"
		;;
	kernels)
		stage kernels 90 bash -c 'rc=0; ./gpu/cuda.test -test.v -test.run GPU || rc=$?; (cd backends/accel && ../../gpu/accel.test -test.v -test.skip "OnCPU|HostShim|WithClang") || rc=$((rc | $?)); exit $rc'
		;;
	parity)
		stage parity 150 ./gpu/lab.test -test.v -test.run 'TestResidentCUDAMatchesCPU'
		;;
	baselines)
		export -f baselines
		stage baselines 30 env WT="$wt" DEV="${GPU_CHECK_BASELINES_DEVICE:-cuda}" STEPS="${GPU_CHECK_BASELINES_STEPS:-20}" bash -c baselines
		;;
	speed-cuda | speed-cuda-gemm)
		local dev=${1#speed-} steps=300
		[ "$dev" = cuda-gemm ] && steps=40
		# The reference packed beside the binary; the Python is the first of $PYTHON, python3,
		# /usr/bin/python3 that imports torch (bench's own search).
		stage "$1" 120 "$wt" bench --presets paper --paper-steps "$steps" --device "$dev" \
			--torch-script gpu/torch_reference.py --json
		;;
	train)
		local secs=${GPU_CHECK_TRAIN_S:-480} left=$((deadline - SECONDS - 120)) floor=60
		((left < secs)) && secs=$left
		((${GPU_CHECK_TRAIN_S:-480} < floor)) && floor=${GPU_CHECK_TRAIN_S}
		if ((secs < floor)); then
			status[train]="SKIPPED (${left}s left before the ${deadline}s deadline, less the 120s a stop takes)"
			echo "   train: ${status[train]}" | tee -a "$logs/stages.txt"
			return
		fi
		export -f train
		stage train $((secs + 120)) env WT="$wt" OUT_DIR="$out" TRAIN_SECS="$secs" \
			GPU_CHECK_TRAIN_EXTRA="${GPU_CHECK_TRAIN_EXTRA:-}" bash -c train
		;;
	*)
		echo "gpu-check: no stage $1 (stages: ${stages_all[*]} train)" | tee -a "$logs/stages.txt"
		status[$1]="FAIL (no such stage)"
		;;
	esac
}

# baselines (in its own bash, from the environment: WT the windtunnel binary, DEV the device,
# STEPS) trains Mamba, the LSTM and the per-position MLP on the laptop preset's recall for STEPS steps on DEV and on
# cpu from one seed, and fails unless both evaluations after them agree within 1e-4 bits
# (bit error (a) and KL).
baselines() {
	local work=${TMPDIR:-/tmp}/gpu-check-baselines m d rc=0
	rm -rf "$work" && mkdir -p "$work" || return 1
	for m in mamba lstm mlp; do
		for d in ref:cpu dev:"$DEV"; do
			local f=$work/$m-${d%%:*}
			d=${d#*:}
			echo "$m on $d: $WT run --headless --json --task recall --model $m --preset laptop --steps $STEPS --device $d"
			"$WT" run --headless --json --task recall --model "$m" --preset laptop --steps "$STEPS" --eval-every "$STEPS" \
				--probe-every 0 --checkpoint-every 0 --device "$d" --seed 1 --out "$f.wtlab" \
				>"$f.json" 2>"$f.log" || { echo "$m on $d: exit $?"; tail -n 5 "$f.log"; rc=1; }
		done
		python3 - "$work/$m-ref.json" "$work/$m-dev.json" "$m" "$DEV" <<'PY' || rc=1
import json, sys
def last(path):
    return json.loads(open(path).read().strip().splitlines()[-1])["eval"]
try:
    a, b = last(sys.argv[1]), last(sys.argv[2])
except (OSError, ValueError, IndexError, KeyError) as e:
    sys.exit(f"{sys.argv[3]}: no evaluation to compare ({type(e).__name__}: {e})")
worst = max(abs(a[k] - b[k]) for k in ("bit_error_position", "kl_bits"))
print(f"{sys.argv[3]}: bit error (a) {a['bit_error_position']:.6f} on cpu, {b['bit_error_position']:.6f} on {sys.argv[4]}; "
      f"KL {a['kl_bits']:.6f} / {b['kl_bits']:.6f}: differ by {worst:.2e} bits")
sys.exit(0 if worst <= 1e-4 else 1)
PY
	done
	return $rc
}

# train (in its own bash, from the environment: WT the windtunnel binary, OUT_DIR the folder
# that comes back, TRAIN_SECS) trains the paper bijection preset on --device cuda for
# TRAIN_SECS seconds, stops it cleanly, and leaves in OUT_DIR paper.log, paper-summary.json,
# paper-evals.csv and paper.wtlab.gz (split in 15 MiB parts when larger). Its exit status is
# the run's: a run stopped by the time limit is a run that worked.
train() {
	local work=${TMPDIR:-/tmp}/gpu-check-paper rc
	rm -rf "$work" && mkdir -p "$work" || return 1
	# shellcheck disable=SC2086 # GPU_CHECK_TRAIN_EXTRA is a list of flags
	set -- run --headless --preset paper --device cuda --steps 50000 --eval-every 1000 \
		--probe-every 10000 --checkpoint-every 0 $GPU_CHECK_TRAIN_EXTRA --out "$work/paper.wtlab"
	echo "for ${TRAIN_SECS}s, then SIGTERM: $WT $*"
	timeout --preserve-status -s TERM -k 100 "$TRAIN_SECS" "$WT" "$@" >"$OUT_DIR/paper-summary.json" 2>"$OUT_DIR/paper.log"
	rc=$?
	echo "run: exit $rc"
	tail -n 15 "$OUT_DIR/paper.log"
	[ -s "$work/paper.wtlab" ] || { echo "train: no session written"; return 1; }
	# The evaluated steps (a record with bit error (a)); the message is the last column.
	"$WT" export "$work/paper.wtlab" --what scalars | awk -F, 'NR == 1 || $9 != ""' >"$OUT_DIR/paper-evals.csv"
	# The optimiser's moments are 4× the parameters' bytes: a copy without them (a session that
	# probes, replays and reports, but does not resume) comes back.
	python3 - "$work/paper.wtlab" "$work/slim.wtlab" <<'PY' || cp "$work/paper.wtlab" "$work/slim.wtlab"
import sqlite3, sys
src, dst = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
src.backup(dst)
src.close()
dst.execute("UPDATE checkpoints SET optimizer = NULL")
dst.commit()
dst.execute("VACUUM")
dst.close()
PY
	gzip -1 -c "$work/slim.wtlab" >"$work/paper.wtlab.gz" || return 1
	ls -l "$work"
	if [ "$(stat -c %s "$work/paper.wtlab.gz")" -gt $((15 * 1024 * 1024)) ]; then
		split -b 15M "$work/paper.wtlab.gz" "$OUT_DIR/paper.wtlab.gz.part-" || return 1
	else
		mv "$work/paper.wtlab.gz" "$OUT_DIR/" || return 1
	fi
	ls -l "$OUT_DIR"
	return $rc
}

summary() {
	echo "gpu-check summary ($(date -u +%FT%TZ), ${SECONDS}s)"
	for s in "$@"; do printf '%-16s %s\n' "$s" "${status[$s]:-not run}"; done
	grep -h -E 'max parameter difference|differ by' "$logs/parity.txt" "$logs/baselines.txt" 2>/dev/null || true
	grep -h -E '^(--- FAIL|FAIL|ok|PASS)' "$logs/kernels.txt" 2>/dev/null | head -20 || true
	python3 - "$logs" <<'PY' 2>&1 || echo "(no speed rows to summarise)"
import json, sys
logs = sys.argv[1]
rows = []
for name in ("speed-cuda", "speed-cuda-gemm"):
    try:
        for line in open(f"{logs}/{name}.txt"):
            if line.startswith("{"):
                rows.append(json.loads(line))
    except OSError:
        pass
if not rows:
    sys.exit(1)
torch = next((r["torch_median_ms"] for r in rows if r.get("torch_median_ms")), None)
print(f"{'paper step on':16s} {'ms/step':>9s} {'min..max':>16s} {'vs PyTorch':>10s} {'50k steps':>10s}")
for r in rows:
    lo, hi = r["windtunnel_min_max_ms"]
    ratio = f"{r['windtunnel_median_ms'] / torch:.2f}" if torch else "-"
    print(f"{r['device']:16s} {r['windtunnel_median_ms']:9.2f} {lo:7.2f}..{hi:<8.2f} {ratio:>10s} {r['projected_50k_steps_min']:7.1f} min")
if torch:
    print(f"{'PyTorch eager':16s} {torch:9.2f} {'':16s} {'1.00':>10s} {torch * 50000 / 60000:7.1f} min")
for r in rows:
    if r.get("torch_error"):
        print(f"PyTorch beside {r['device']}: {r['torch_error']}")
by = {r["device"]: r["windtunnel_median_ms"] for r in rows}
if "cuda" in by and "cuda-gemm" in by:
    print(f"cuda-gemm / cuda = {by['cuda-gemm'] / by['cuda']:.1f}x")
PY
	[ -s "$out/paper-evals.csv" ] || return 0
	python3 - "$out" <<'PY' 2>&1 || echo "(the paper run's evaluations could not be read)"
import csv, json, sys
out = sys.argv[1]
# The authors' production run (bit error (b)) at the steps they report.
authors = {1000: 0.086, 2000: 0.043}
rows = list(csv.DictReader(open(f"{out}/paper-evals.csv")))
try:
    s = json.loads(open(f"{out}/paper-summary.json").read().strip().splitlines()[-1])
    print(f"paper bijection on --device {s.get('config', {}).get('device')}: {s.get('steps')} steps in {s.get('wall_s')} s, "
          f"{s.get('ms_per_step')} ms a step (evaluations and snapshots included), state {s.get('state')}")
except (OSError, ValueError, IndexError):
    print("paper bijection on --device cuda: no summary line (see paper.log)")
print(f"{'step':>7s} {'bit error (a)':>14s} {'(b)':>9s} {'authors (b)':>12s} {'wall s':>8s}")
# The steps the issue asks for (1k, 2k, 4k, 7k, every 10k) and the last; paper-evals.csv has all.
shown = {1000, 2000, 4000, 7000}
for r in rows:
    step = int(r["step"])
    if step not in shown and step % 10000 != 0 and r is not rows[-1]:
        continue
    a = authors.get(step)
    print(f"{step:7d} {float(r['bit_error_position']):14.4f} {float(r['bit_error_sample']):9.4f} "
          f"{(f'{a:.3f}' if a else ''):>12s} {float(r['wall_s']):8.1f}")
PY
}

case "${1:-run}" in
build)
	build
	;;
run)
	shift $(($# > 0 ? 1 : 0))
	out=${OUT:-/tmp/gpu-check}
	deadline=${GPU_CHECK_DEADLINE_S:-540}
	for v in "GPU_CHECK_DEADLINE_S=$deadline" "GPU_CHECK_TRAIN_S=${GPU_CHECK_TRAIN_S:-480}"; do
		[[ ${v#*=} =~ ^[0-9]+$ ]] || { echo "gpu-check: $v: want whole seconds" >&2; exit 2; }
	done
	wt=${WINDTUNNEL_BIN:-./gpu/windtunnel}
	logs=$(mktemp -d) || exit 1
	mkdir -p "$out" || exit 1
	# Build gpu/ only for what is missing and asked for: the test binaries when a stage needs
	# them (every stage but device, train and the speed stages), windtunnel unless
	# WINDTUNNEL_BIN names one. A run with everything at hand writes nothing into the tree.
	need=0 bins=()
	if [ -z "${WINDTUNNEL_BIN:-}" ]; then
		bins+=(windtunnel)
		[ -e gpu/windtunnel.gz ] || [ -x gpu/windtunnel ] || need=1
	fi
	for s in "${@:-kernels}"; do
		case $s in kernels | parity)
			bins+=(cuda.test accel.test lab.test)
			[ -e gpu/lab.test.gz ] || [ -x gpu/lab.test ] || need=1
			;;
		esac
	done
	if ((need)) && command -v go >/dev/null 2>&1; then build >"$logs/build.txt" 2>&1; fi
	unpack "${bins[@]}"
	export WINDTUNNEL_REQUIRE_GPU=1 PYTHONUNBUFFERED=1
	declare -A status
	stages=("$@")
	if ((${#stages[@]})); then
		for s in "${stages[@]}"; do run_stage "$s"; done
	else
		for s in "${stages_all[@]}"; do run_stage "$s"; done
		# Training is worth the time only on a step that matches the CPU's.
		if [ "${status[parity]}" = PASS ]; then
			run_stage train
		else
			status[train]="SKIPPED (parity did not pass)"
		fi
		stages=("${stages_all[@]}" train)
	fi
	summary "${stages[@]}" | tee "$out/summary.txt"
	;;
*)
	echo "usage: $0 build | run [STAGE...]   (stages: ${stages_all[*]} train)" >&2
	exit 2
	;;
esac
