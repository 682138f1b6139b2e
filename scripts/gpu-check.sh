#!/usr/bin/env bash
# The one prepared command a lent NVIDIA GPU needs (issues 20 and 31), in two halves because
# the GPU machine has no Go toolchain and no network:
#   here:   scripts/gpu-check.sh build   builds into gpu/ (ignored by git, so carry it: the
#                                        device tool's carry ["gpu"]; about 40 MB, under 64 MiB):
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
# run does every stage (or the STAGEs named) in order, each whatever the earlier ones gave,
# each under its own timeout; in all at most 8½ minutes, inside one 10-minute device command:
#   device            30 s   nvidia-smi and `windtunnel device` (GPU, driver, cuBLAS, NVRTC, files)
#   kernels           90 s   every kernel of kernels.cu compiled by NVRTC against its Go version at
#                            the odd and the quick preset's sizes, over two small grids and the
#                            model's own grids, outputs NaN-filled, within accel.ParityTol; cuBLAS
#                            products on device pointers (cuda.test -test.run GPU); accel.test
#                            (catalogue contract, parity harness; its clang tests run here)
#   parity           150 s   20 paper steps (bijection V=20, L=6 H=6 d=192, batch 256) on cpu,
#                            cuda-gemm and cuda (the whole step resident) from one seed: every
#                            parameter within 1e-4 (lab.test TestResidentCUDAMatchesCPU)
#   speed-cuda       120 s   300 timed paper steps on --device cuda beside PyTorch eager on the
#                            same GPU (torch_reference.py --device cuda): ms a step, projected 50k
#   speed-cuda-gemm  120 s   40 timed paper steps on --device cuda-gemm, the same way
#   summary                  one table, last (summary.txt)
# Everything is logged under $OUT (the folder whose files come back; default /tmp/gpu-check):
# stages.txt (each stage's command, exit status and seconds), NAME.txt a stage, summary.txt.
# Without a GPU every stage fails quickly, is logged as FAIL, and the next one runs.
set -uo pipefail
cd "$(dirname "$0")/.."

stages_all=(device kernels parity speed-cuda speed-cuda-gemm)

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

# unpack restores the binaries build compressed (gpu/NAME.gz to gpu/NAME, executable).
unpack() {
	local f
	for f in gpu/*.gz; do
		[ -e "$f" ] || continue
		gzip -d -c "$f" >"${f%.gz}" && chmod +x "${f%.gz}" || echo "gpu-check: cannot unpack $f" >&2
	done
}

# stage NAME TIMEOUT_S COMMAND...: runs COMMAND into $out/NAME.txt under the timeout and
# records PASS or FAIL (exit status; 124 is the timeout) and the seconds it took.
stage() {
	local name=$1 limit=$2 t0=$SECONDS rc
	shift 2
	echo "== $name (timeout ${limit}s): $*" | tee -a "$out/stages.txt"
	timeout -k 10 "$limit" "$@" >"$out/$name.txt" 2>&1 </dev/null
	rc=$?
	if [ "$rc" = 0 ]; then
		status[$name]=PASS
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status[$name]="FAIL (timed out after ${limit}s)"
	else
		status[$name]="FAIL (exit $rc)"
	fi
	echo "   $name: ${status[$name]} in $((SECONDS - t0))s" | tee -a "$out/stages.txt"
	tail -n 25 "$out/$name.txt"
}

run_stage() {
	case $1 in
	device)
		stage device 30 bash -c 'cat gpu/BUILD.txt; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || echo "nvidia-smi failed"; nvidia-smi || true; ./gpu/windtunnel device'
		;;
	kernels)
		stage kernels 90 bash -c 'rc=0; ./gpu/cuda.test -test.v -test.run GPU || rc=$?; (cd backends/accel && ../../gpu/accel.test -test.v -test.skip "OnCPU|HostShim|WithClang") || rc=$((rc | $?)); exit $rc'
		;;
	parity)
		stage parity 150 ./gpu/lab.test -test.v -test.run 'TestResidentCUDAMatchesCPU'
		;;
	speed-cuda | speed-cuda-gemm)
		local dev=${1#speed-} steps=300
		[ "$dev" = cuda-gemm ] && steps=40
		# The reference packed beside the binary; the Python is the first of $PYTHON, python3,
		# /usr/bin/python3 that imports torch (bench's own search).
		stage "$1" 120 ./gpu/windtunnel bench --presets paper --paper-steps "$steps" --device "$dev" \
			--torch-script gpu/torch_reference.py --json
		;;
	*)
		echo "gpu-check: no stage $1 (stages: ${stages_all[*]})" | tee -a "$out/stages.txt"
		status[$1]="FAIL (no such stage)"
		;;
	esac
}

summary() {
	echo "gpu-check summary ($(date -u +%FT%TZ))"
	for s in "$@"; do printf '%-16s %s\n' "$s" "${status[$s]:-not run}"; done
	grep -h -E 'max parameter difference|differ by' "$out/parity.txt" 2>/dev/null || true
	grep -h -E '^(--- FAIL|FAIL|ok|PASS)' "$out/kernels.txt" 2>/dev/null | head -20 || true
	python3 - "$out" <<'PY' 2>&1 || echo "(no speed rows to summarise)"
import json, sys
out = sys.argv[1]
rows = []
for name in ("speed-cuda", "speed-cuda-gemm"):
    try:
        for line in open(f"{out}/{name}.txt"):
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
}

case "${1:-run}" in
build)
	build
	;;
run)
	shift $(($# > 0 ? 1 : 0))
	out=${OUT:-/tmp/gpu-check}
	mkdir -p "$out"
	if [ ! -e gpu/windtunnel.gz ] && [ ! -x gpu/windtunnel ] && command -v go >/dev/null 2>&1; then build >"$out/build.txt" 2>&1; fi
	unpack
	export WINDTUNNEL_REQUIRE_GPU=1 PYTHONUNBUFFERED=1
	declare -A status
	stages=("$@")
	((${#stages[@]})) || stages=("${stages_all[@]}")
	for s in "${stages[@]}"; do run_stage "$s"; done
	summary "${stages[@]}" | tee "$out/summary.txt"
	;;
*)
	echo "usage: $0 build | run [STAGE...]   (stages: ${stages_all[*]})" >&2
	exit 2
	;;
esac
